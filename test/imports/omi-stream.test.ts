import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';
import { importExport } from '../../src/features/imports/import-export.service.ts';
import { readExportFile } from '../../src/features/imports/read-export.ts';
import { NOT_AN_OMI_EXPORT } from '../../src/features/imports/sources/omi-export.ts';
import {
  MAX_CONVERSATION_BYTES,
  MAX_PARSE_THREADS,
  type OmiStreamPart,
  parsePlace,
  parseThreadUse,
  streamOmiExport,
} from '../../src/features/imports/sources/omi-export-stream.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

const tempFile = (name: string, data: string | Buffer) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-omi-stream-')), name);
  fs.writeFileSync(file, data);
  return file;
};

/** A conversation in Omi's shape, its segments said by the wearer and by person `p_lee`. */
function conversation(i: number, text = `Point number ${i} is agreed.`) {
  return {
    id: `conv-${i}`,
    created_at: `2025-10-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`,
    structured: { title: `Talk ${i}`, action_items: [] },
    transcript_segments: [
      { text, speaker: 'SPEAKER_00', is_user: true, start: 0, end: 2 },
      { text: 'Agreed.', speaker: 'SPEAKER_01', person_id: 'p_lee', start: 2, end: 3 },
    ],
  };
}

async function partsOf(file: string, me?: string): Promise<OmiStreamPart[]> {
  const parts: OmiStreamPart[] = [];
  for await (const part of streamOmiExport('omi.json', file, me)) parts.push(part);
  return parts;
}

async function collect(reading: AsyncGenerator<OmiStreamPart>): Promise<OmiStreamPart[]> {
  const parts: OmiStreamPart[] = [];
  for await (const part of reading) parts.push(part);
  return parts;
}

const items = (parts: OmiStreamPart[]) =>
  parts.flatMap((p) => [...p.notes.map((n) => n.item), ...p.errors.map((e) => `${e.item}: ${e.message}`)]);

describe('an Omi export streamed', () => {
  it('gives one conversation at a time from the export object, named by people and with loose action items listed after the conversations', async () => {
    const file = tempFile(
      'omi.json',
      JSON.stringify({
        exported_at: '2025-11-02T10:00:00Z',
        conversations: [conversation(0), conversation(1), { id: 'bad' }, conversation(3)],
        action_items: [
          { description: 'Send the deck', conversation_id: 'conv-1', due_at: '2025-11-05T09:00:00Z' },
        ],
        people: [{ id: 'p_lee', name: 'Lee Chen' }],
      }),
    );
    const parts = await partsOf(file, 'Sam');
    expect(parts.every((p) => p.notes.length + p.errors.length === 1)).toBe(true);
    expect(items(parts)).toEqual([
      'omi.json: conversations[0] (conv-0)',
      'omi.json: conversations[1] (conv-1)',
      expect.stringMatching(/^omi\.json: conversations\[2\]: not an Omi conversation: created_at: /),
      'omi.json: conversations[3] (conv-3)',
    ]);
    const second = parts[1]?.notes[0];
    expect(second?.speakers).toEqual([
      { label: 'me', name: 'Sam' },
      { label: 'SPEAKER_01', name: 'Lee Chen' },
    ]);
    expect(second?.action_items).toEqual([
      expect.objectContaining({ text: 'Send the deck', due: '2025-11-05', status: 'pending' }),
    ]);
  });

  it('reads the older bare array the same way, with a byte order mark', async () => {
    const file = tempFile('omi.json', `\uFEFF${JSON.stringify([conversation(0), conversation(1)])}\n`);
    expect(items(await partsOf(file))).toEqual([
      'omi.json: conversations[0] (conv-0)',
      'omi.json: conversations[1] (conv-1)',
    ]);
  });

  it('a file that breaks off or has a byte that is not UTF-8 gives the conversations before and an error naming where', async () => {
    const whole = JSON.stringify({ conversations: [conversation(0), conversation(1), conversation(2)] });
    const cut = tempFile('omi.json', whole.slice(0, whole.indexOf('"conv-2"') + 3));
    expect(items(await partsOf(cut))).toEqual([
      'omi.json: conversations[0] (conv-0)',
      'omi.json: conversations[1] (conv-1)',
      expect.stringMatching(/^omi\.json: not valid JSON from conversations\[2\] on \(/),
    ]);
    // Long enough that the first conversation ends pieces before the bad byte, which is in the second.
    const long = JSON.stringify([
      conversation(0, 'on '.repeat(20_000)),
      conversation(1, `${'on '.repeat(20_000)}x`),
    ]);
    const bytes = Buffer.from(long);
    const at = bytes.indexOf('on x');
    bytes[at] = 0xff;
    expect(items(await partsOf(tempFile('omi.json', bytes)))).toEqual([
      'omi.json: conversations[0] (conv-0)',
      'omi.json: not valid UTF-8 text from conversations[1] on',
    ]);
  });

  it('a conversation larger than the limit ends the reading with an error naming it, never held whole', async () => {
    const huge = conversation(1, 'word '.repeat(Math.ceil(MAX_CONVERSATION_BYTES / 5) + 20_000));
    const file = tempFile('omi.json', JSON.stringify([conversation(0), huge, conversation(2)]));
    expect(items(await partsOf(file))).toEqual([
      'omi.json: conversations[0] (conv-0)',
      `omi.json: conversations[1] is larger than the ${MAX_CONVERSATION_BYTES} bytes a conversation may have: the rest of the file is not read`,
    ]);
  });

  it('parses in capped threads: a reading holds a place only while its thread parses, so paused readings block no one', async () => {
    const file = tempFile('omi.json', JSON.stringify(Array.from({ length: 30 }, (_, i) => conversation(i))));
    // More readings than places, each paused after its first conversation (an import storing what it was given).
    const paused = Array.from({ length: MAX_PARSE_THREADS + 1 }, () => streamOmiExport('omi.json', file));
    for (const reading of paused) expect((await reading.next()).done).toBe(false);
    expect(parseThreadUse()).toEqual({ running: 0, waiting: 0 });
    // Another reading goes through to the end meanwhile.
    expect(items(await collect(streamOmiExport('omi.json', file)))).toHaveLength(30);
    // The paused ones read on, and one stopped early leaves nothing held.
    await paused[0]!.return(undefined);
    for (const reading of paused.slice(1)) expect(items(await collect(reading))).toHaveLength(29);
    expect(parseThreadUse()).toEqual({ running: 0, waiting: 0 });
  });

  it('gives at most MAX_PARSE_THREADS places at once, the next to the first waiting, each given back once', async () => {
    const held = await Promise.all(Array.from({ length: MAX_PARSE_THREADS }, () => parsePlace()));
    const order: string[] = [];
    const taken = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const first = parsePlace().then(taken('first'));
    const second = parsePlace().then(taken('second'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(parseThreadUse()).toEqual({ running: MAX_PARSE_THREADS, waiting: 2 });
    held[0]!();
    held[0]!(); // given back twice: counts once
    const releaseFirst = await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first']);
    expect(parseThreadUse()).toEqual({ running: MAX_PARSE_THREADS, waiting: 1 });
    held[1]!();
    const releaseSecond = await second;
    expect(order).toEqual(['first', 'second']);
    releaseFirst();
    releaseSecond();
    expect(parseThreadUse()).toEqual({ running: 0, waiting: 0 });
  });

  it('JSON that is not an Omi export is one error naming the file', async () => {
    for (const text of ['"hello"', '{"memories": []}', '']) {
      expect(items(await partsOf(tempFile('omi.json', text)))).toEqual([`omi.json: ${NOT_AN_OMI_EXPORT}`]);
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`an Omi export larger than the per-file limit (${dialect})`, () => {
    const h = useHarness(dialect);

    it('imports every conversation of an export far larger than the limit on a file read whole; again creates nothing', {
      timeout: 120_000,
    }, async () => {
      const t = await h.tenant();
      const actor: Actor = { accountId: t.accountId, mode: 'live', scopes: new Set(SCOPES), keyId: 'test' };
      const conversations = Array.from({ length: 40 }, (_, i) =>
        conversation(i, `Item ${i}: ${'budget '.repeat(400)}`),
      );
      const file = tempFile(
        'omi.json',
        JSON.stringify({ conversations, people: [{ id: 'p_lee', name: 'Lee' }] }),
      );
      const limits = { maxEntryBytes: 16 * 1024 };
      expect(fs.statSync(file).size).toBeGreaterThan(limits.maxEntryBytes * 4);
      const first = await importExport(h.deps, actor, readExportFile(file, limits));
      expect(first.map((o) => o.outcome)).toEqual(Array(40).fill('imported'));
      const again = await importExport(h.deps, actor, readExportFile(file, limits));
      expect(again.map((o) => o.outcome)).toEqual(Array(40).fill('skipped'));
      // A file that is not an Omi export is still read whole, within the limit.
      const other = tempFile(
        'lifelog.json',
        JSON.stringify({ contents: [], startTime: 'x', pad: 'x'.repeat(20_000) }),
      );
      expect(await importExport(h.deps, actor, readExportFile(other, limits))).toEqual([
        { item: other, outcome: 'failed', error: expect.stringMatching(/^larger than the 16384 bytes/) },
      ]);
    });
  });
}
