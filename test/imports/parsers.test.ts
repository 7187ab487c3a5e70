import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectSource, parseImportFile } from '../../src/features/imports/parse-import.ts';
import { isSafeEntryName } from '../../src/features/imports/read-export.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name)));
const LIFELOG = 'limitless/lifelogs/2025-10-08_07h00m25s_Weekly-planning-with-Dana.md';

describe('Limitless lifelog', () => {
  it('keeps the title, the utterances relative to the first, the wearer named by me and headings as highlights', () => {
    const { source, notes, errors } = parseImportFile({ name: LIFELOG, bytes: fixture(LIFELOG), me: 'Sam' });
    expect(source).toBe('limitless');
    expect(errors).toEqual([]);
    const [note] = notes;
    expect(note).toMatchObject({
      source: 'limitless',
      source_id: '2025-10-08_07h00m25s_Weekly-planning-with-Dana',
      title: 'Weekly planning with Dana',
      created_at: '2025-10-08T07:00:25.000Z',
      speakers: [
        { label: '1', name: 'Sam' },
        { label: '2', name: 'Speaker 2' },
      ],
    });
    expect(note?.segments[0]).toEqual({
      speaker: '1',
      start_ms: 0,
      end_ms: 4500,
      text: 'Morning Dana, shall we go through the launch plan?',
    });
    expect(note?.segments).toHaveLength(5);
    expect(note?.highlights).toEqual([
      { text: 'Launch timeline for the beta', timestamp_ms: 0 },
      { text: 'Dana will send the pricing draft by Friday', timestamp_ms: 0 },
      { text: 'Pricing and the team plan', timestamp_ms: 16_000 },
    ]);
  });

  it('keeps a named speaker and names numbered ones without me', () => {
    const name = 'limitless/lifelogs/2025-10-09_14h30m00s_Coffee-order.md';
    const [note] = parseImportFile({ name, bytes: fixture(name) }).notes;
    expect(note?.speakers).toEqual([
      { label: '1', name: 'Speaker 1' },
      { label: 'Barista', name: 'Barista' },
    ]);
  });

  it('names the file when it has no utterance, is not UTF-8, or has no time', () => {
    const md = (text: string | Uint8Array, name = 'lifelogs/x.md') => ({
      name,
      bytes: typeof text === 'string' ? new TextEncoder().encode(text) : text,
    });
    expect(parseImportFile(md('# Just a title\n\nSome prose.')).errors).toEqual([
      { item: 'lifelogs/x.md', message: expect.stringContaining('no utterances found') },
    ]);
    expect(parseImportFile(md(new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0x41]))).errors).toEqual([
      { item: 'lifelogs/x.md', message: 'not valid UTF-8 text' },
    ]);
    expect(parseImportFile(md('> [1](#startMs=5&endMs=9): relative times only')).errors[0]?.message).toMatch(
      /no time found/,
    );
    // Broken utterance lines are passed over; the good one is kept.
    const mixed = parseImportFile(
      md(
        '> [1](#startMs=abc&endMs=9): bad\n> [1](#startMs=1759906825000&endMs=1759906826000): good\n> [](#startMs=1): x\n> [2](#startMs=1759906827000',
      ),
    );
    expect(mixed.notes[0]?.segments.map((s) => s.text)).toEqual(['good']);
  });

  it('reads hostile lines in time proportional to their length', () => {
    const hostile = `${'> ['.repeat(50_000)}${'](#'.repeat(50_000)}\n${'#'.repeat(100_000)} \n2025-10-08_${'0'.repeat(100_000)}`;
    const parsed = parseImportFile({
      name: `lifelogs/${'9'.repeat(1000)}.md`,
      bytes: new TextEncoder().encode(hostile),
    });
    expect(parsed.errors).toHaveLength(1);
  });
});

describe('Omi export', () => {
  it('reads "Export All Data": titles, start times, people, the wearer, merged action items with status and due date', () => {
    const { source, notes, errors } = parseImportFile({
      name: 'omi/export-all.json',
      bytes: fixture('omi/export-all.json'),
      me: 'Sam',
    });
    expect(source).toBe('omi');
    expect(errors).toEqual([
      { item: 'omi/export-all.json: conversations[2]', message: expect.stringContaining('created_at') },
    ]);
    expect(notes.map((n) => [n.source_id, n.title, n.created_at])).toEqual([
      ['c1a7e0b2-5f6d-4c1e-9a55-0f1d2e3c4b5a', 'Vendor contract review', '2025-10-21T16:00:00.000Z'],
      ['7d3f9e21-aa10-4b8e-8c2d-91b0c4e5f6a7', 'Gym schedule', '2025-10-22T08:30:00.000Z'],
    ]);
    const [contract] = notes;
    expect(contract?.speakers).toEqual([
      { label: 'me', name: 'Sam' },
      { label: 'SPEAKER_01', name: 'Lee Chen' },
    ]);
    expect(contract?.segments[1]).toEqual({
      speaker: 'SPEAKER_01',
      start_ms: 3600,
      end_ms: 8900,
      text: 'They did, it auto renews unless we give ninety days notice.',
    });
    expect(contract?.action_items).toEqual([
      {
        text: 'Send the signed contract to legal',
        assignee: null,
        due: null,
        status: 'completed',
        created_at: '2025-10-21T16:05:12.000Z',
        updated_at: '2025-10-22T09:15:00.000Z',
        completed_at: '2025-10-22T09:15:00.000Z',
      },
      {
        text: 'Ask the vendor for the SLA credits table',
        assignee: null,
        due: '2025-10-24',
        status: 'pending',
        created_at: '2025-10-21T16:05:12.000Z',
        updated_at: '2025-10-21T16:05:12.000Z',
        completed_at: null,
      },
      {
        text: 'Put the renewal date in the calendar',
        assignee: null,
        due: '2025-11-15',
        status: 'pending',
        created_at: '2025-10-21T16:06:00.000Z',
        updated_at: '2025-10-21T16:06:00.000Z',
        completed_at: null,
      },
    ]);
  });

  it('reads the older bare array of conversations', () => {
    const { notes, errors } = parseImportFile({
      name: 'a.json',
      bytes: fixture('omi/conversations-array.json'),
    });
    expect(errors).toEqual([]);
    expect(notes[0]).toMatchObject({
      source: 'omi',
      title: 'Lunch plans',
      created_at: '2025-06-03T12:00:00.000Z',
      speakers: [
        { label: 'SPEAKER_01', name: 'SPEAKER_01' },
        { label: 'me', name: 'Me' },
      ],
      action_items: [{ text: 'Book a table for Friday', status: 'pending', due: null, completed_at: null }],
    });
  });

  it('names a file that is not JSON or not an Omi export', () => {
    const json = (text: string) => ({
      name: 'e.json',
      bytes: new TextEncoder().encode(text),
      source: 'omi' as const,
    });
    expect(parseImportFile(json('{"conversations": [')).errors[0]?.message).toMatch(/^not valid JSON/);
    expect(parseImportFile(json('{"memories": []}')).errors[0]?.message).toMatch(/^not an Omi export/);
    expect(
      parseImportFile(json('[{"id": "x", "created_at": "2025-01-01T00:00:00Z", "transcript_segments": []}]'))
        .errors,
    ).toEqual([{ item: 'e.json: conversations[0] (x)', message: 'the conversation has no transcript' }]);
  });
});

describe('source detection and entry names', () => {
  it('tells a lifelog, a Minutes note and an Omi export apart', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(detectSource('a.md', enc('# x'))).toBe('limitless');
    expect(detectSource('n.json', enc('{"id":"note_1","title_locked":true,"transcript":""}'))).toBe(
      'minutes',
    );
    expect(detectSource('o.json', enc('{"conversations":[]}'))).toBe('omi');
  });

  it('refuses entry names that lead out of the archive', () => {
    for (const bad of [
      '../evil.md',
      'lifelogs/../../evil.md',
      '/etc/passwd.md',
      'C:/x.md',
      'a\\..\\b.md',
      '',
    ])
      expect(isSafeEntryName(bad), bad).toBe(false);
    for (const good of ['lifelogs/2025-10-08_07h00m25s_x.md', 'export/lifelogs/a..b.md'])
      expect(isSafeEntryName(good), good).toBe(true);
  });
});

describe('Minutes note with a recording', () => {
  const note = (audioFile: string) => ({
    id: 'note_1',
    title: 'Call',
    title_locked: false,
    status: 'ready',
    failure_reason: null,
    summary: '',
    transcript: '',
    duration_seconds: 1,
    tags: [],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    source: null,
    source_id: null,
    recording: {
      id: 'rec_0123456789abcdefghijABCD',
      content_type: 'audio/wav',
      size_bytes: 4,
      duration_seconds: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      content_sha256: null,
      language: null,
      audio: { file: audioFile, size_bytes: 4, sha256: 'a'.repeat(64) },
    },
    segments: [],
    speakers: [],
    highlights: [],
    action_items: [],
  });
  const parse = (value: unknown) =>
    parseImportFile({
      name: 'live/notes/note_1.json',
      bytes: new TextEncoder().encode(JSON.stringify(value)),
      source: 'minutes',
    });

  it('keeps the recording and its audio file name', () => {
    const { notes, errors } = parse(note('rec_0123456789abcdefghijABCD.wav'));
    expect(errors).toEqual([]);
    expect(notes[0]?.exact?.recording?.audio).toEqual({
      file: 'rec_0123456789abcdefghijABCD.wav',
      size_bytes: 4,
      sha256: 'a'.repeat(64),
    });
  });

  it('refuses an audio file name that is a path or not a recording', () => {
    for (const bad of [
      '../rec_0123456789abcdefghijABCD.wav',
      'x/rec_0123456789abcdefghijABCD.wav',
      'a.wav',
      '',
    ]) {
      const { notes, errors } = parse(note(bad));
      expect(notes, bad).toEqual([]);
      expect(errors[0]?.message, bad).toMatch(/^not a Minutes note: recording\.audio\.file/);
    }
  });
});
