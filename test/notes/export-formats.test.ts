import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  cueTime,
  type ExportableNote,
  exportBaseName,
  formatNote,
  toMarkdown,
  toSrt,
  toText,
  toVtt,
} from '../../src/features/notes/export/export-formats.ts';
import { parseTranscript } from '../../src/features/transcripts/parse-transcript.ts';
import { clock } from '../../src/lib/time.ts';

const NOTE: ExportableNote = {
  id: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W',
  title: 'Q3 planning: budget / "review"',
  summary: 'Spending ran over plan.',
  transcript: 'Speaker 1: The budget was exceeded.\nSpeaker 2: Then finance needs a forecast.',
  action_items: [
    { id: 'ai_1', text: 'Send the forecast', assignee: 'Maya Chen', due: '2026-12-04', status: 'pending' },
    { id: 'ai_2', text: 'Book the venue', status: 'completed' },
  ],
  highlights: [{ id: 'hl_1', timestamp_ms: 3_754_000, text: 'The budget was exceeded.' }],
  speakers: [
    { label: 'Speaker 1', name: 'Maya Chen' },
    { label: 'Speaker 2', name: 'Speaker 2' },
  ],
  tags: ['planning', 'Q3 finance'],
  created_at: '2026-11-20T14:00:00.000Z',
  duration_seconds: 1805,
  status: 'ready',
  segments: [
    { speaker: 'Speaker 1', start_ms: 0, end_ms: 5_800, text: 'The budget was exceeded.' },
    {
      speaker: 'Speaker 2',
      start_ms: 6_000,
      end_ms: 3_725_001,
      text: 'Then finance needs a <forecast> & more.',
    },
  ],
};

describe('export formats (pure)', () => {
  it('times: clock for readers, cue times for SRT and WebVTT', () => {
    expect([clock(0), clock(59_999), clock(754_000), clock(3_754_000)]).toEqual([
      '0:00',
      '0:59',
      '12:34',
      '1:02:34',
    ]);
    expect(cueTime(3_725_001, ',')).toBe('01:02:05,001');
    expect(cueTime(5_800, '.')).toBe('00:00:05.800');
  });

  it('Markdown: YAML front matter, task-list action items, timestamped highlights, named transcript', () => {
    const md = toMarkdown(NOTE);
    expect(md).toBe(
      [
        '---',
        'title: "Q3 planning: budget / \\"review\\""',
        'date: "2026-11-20T14:00:00.000Z"',
        'tags:',
        '  - "planning"',
        '  - "Q3 finance"',
        'speakers:',
        '  - "Maya Chen"',
        '  - "Speaker 2"',
        'duration_seconds: 1805',
        'id: "note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W"',
        'status: "ready"',
        '---',
        '',
        '# Q3 planning: budget / "review"',
        '',
        '## Summary',
        '',
        'Spending ran over plan.',
        '',
        '## Action items',
        '',
        '- [ ] Send the forecast (@Maya Chen, due 2026-12-04)',
        '- [x] Book the venue',
        '',
        '## Highlights',
        '',
        '- [1:02:34] The budget was exceeded.',
        '',
        '## Transcript',
        '',
        '**Maya Chen** [0:00]: The budget was exceeded.',
        '',
        '**Speaker 2** [0:06]: Then finance needs a <forecast> & more.',
        '',
      ].join('\n'),
    );
    expect(toMarkdown({ ...NOTE, tags: [], action_items: [], highlights: [], summary: '' })).toContain(
      'tags: []',
    );
  });

  it('Markdown and text without segments fall back to the transcript lines', () => {
    const plain = { ...NOTE, segments: undefined };
    expect(toMarkdown(plain)).toContain('**Maya Chen**: The budget was exceeded.');
    expect(toText(plain).split('\n').slice(-3)).toEqual([
      'Maya Chen: The budget was exceeded.',
      'Speaker 2: Then finance needs a forecast.',
      '',
    ]);
  });

  it('SRT and WebVTT: one cue per segment with the display name; VTT escapes text', () => {
    expect(toSrt(NOTE)).toBe(
      '1\n00:00:00,000 --> 00:00:05,800\nMaya Chen: The budget was exceeded.\n\n' +
        '2\n00:00:06,000 --> 01:02:05,001\nSpeaker 2: Then finance needs a <forecast> & more.\n',
    );
    expect(toVtt(NOTE)).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:05.800\n<v Maya Chen>The budget was exceeded.\n\n' +
        '00:00:06.000 --> 01:02:05.001\n<v Speaker 2>Then finance needs a &lt;forecast&gt; &amp; more.\n',
    );
    expect(toSrt({ ...NOTE, segments: [] })).toBe('');
    expect(toVtt({ ...NOTE, segments: [] })).toBe('WEBVTT\n\n');
  });

  it('SRT and WebVTT parse back to the same segments (speakers by display name)', () => {
    const expected = NOTE.segments!.map((s) => ({
      ...s,
      speaker: s.speaker === 'Speaker 1' ? 'Maya Chen' : s.speaker,
    }));
    expect(parseTranscript(toVtt(NOTE))).toEqual(expected);
    // SRT carries no escapes: angle brackets in text are read as tags, so that text is left out here.
    const plain = {
      ...NOTE,
      segments: NOTE.segments!.map((s) => ({ ...s, text: s.text.replace(/[<>]/g, '') })),
    };
    expect(parseTranscript(toSrt(plain))).toEqual(
      expected.map((s) => ({ ...s, text: s.text.replace(/[<>]/g, '') })),
    );
  });

  it('JSON is the detail form, pretty-printed', () => {
    expect(JSON.parse(formatNote(NOTE, 'json'))).toEqual(NOTE);
  });

  it('file names: date and title, without characters file systems or Obsidian links refuse', () => {
    expect(exportBaseName(NOTE)).toBe('2026-11-20 Q3 planning budget review');
    expect(exportBaseName({ title: '../../etc/passwd', created_at: NOTE.created_at })).toBe(
      '2026-11-20 .. .. etc passwd',
    );
    expect(exportBaseName({ title: '###', created_at: NOTE.created_at })).toBe('2026-11-20');
    expect(exportBaseName({ title: `${'é'.repeat(200)}`, created_at: NOTE.created_at })).toHaveLength(99);
    expect(exportBaseName({ title: 'Notes [draft] #1 ^a|b...', created_at: NOTE.created_at })).toBe(
      '2026-11-20 Notes draft 1 a b',
    );
    expect(contentDisposition('2026-11-20 Réunion été', 'md')).toBe(
      `attachment; filename="2026-11-20 Reunion ete.md"; filename*=UTF-8''2026-11-20%20R%C3%A9union%20%C3%A9t%C3%A9.md`,
    );
    expect(contentDisposition('2026-11-20 会議', 'txt')).toMatch(
      /^attachment; filename="2026-11-20.txt"; filename\*=UTF-8''/,
    );
  });

  it('the ASCII filename is sanitised after normalising: fullwidth separators cannot become a path', () => {
    const header = contentDisposition('2026-11-20 ..／..／etc／passwd＜＞？＊｜＂＼：', 'md');
    const ascii = /filename="([^"]*)"/.exec(header)![1]!;
    expect(ascii).toBe('2026-11-20 .. .. etc passwd.md');
    expect(ascii).not.toMatch(/[/\\:*?"<>|]/);
    expect(/filename="([^"]*)"/.exec(contentDisposition('．．／．．／', 'md'))![1]).toBe('note.md');
    expect(/filename="([^"]*)"/.exec(contentDisposition('..', 'txt'))![1]).toBe('note.txt');
    // Any text: never a separator, quote, control or dot name in `filename`.
    const alphabet = [
      '／',
      '＼',
      '．',
      '.',
      '/',
      '"',
      '\\',
      '\u0000',
      '＂',
      'a',
      ' ',
      '％',
      '\u2215',
      '\uff0e',
    ];
    for (let i = 0; i < 500; i++) {
      let base = '';
      for (let j = 0; j < 1 + (i % 40); j++) base += alphabet[(i * 7 + j * 13) % alphabet.length];
      const name = /filename="([^"]*)"/.exec(contentDisposition(base, 'md'))![1]!;
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters must not appear
      expect(name).not.toMatch(/[/\\:*?"<>|\u0000-\u001f]/);
      expect(name.startsWith('.')).toBe(false);
    }
  });
});
