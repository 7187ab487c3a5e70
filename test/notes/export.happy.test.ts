import { describe, expect, it } from 'vitest';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { createNote, type NoteDetail } from './notes.fixtures.ts';

const SEGMENTS = [
  { speaker: 'Speaker 1', start_ms: 0, end_ms: 6_000, text: 'Thanks for joining the Q3 budget review.' },
  {
    speaker: 'Speaker 2',
    start_ms: 6_500,
    end_ms: 14_000,
    text: 'Marketing spending went over plan by twelve percent & more.',
  },
  {
    speaker: 'Speaker 1',
    start_ms: 14_500,
    end_ms: 22_000,
    text: 'Key point: the budget was exceeded, so we freeze new sponsorships.',
  },
  {
    speaker: 'Speaker 2',
    start_ms: 22_500,
    end_ms: 30_000,
    text: "I'll send the revised forecast to finance by Friday.",
  },
  { speaker: 'Speaker 3', start_ms: 3_600_000, end_ms: 3_605_250, text: 'Sorry, I joined late.' },
];

async function exported(h: Harness, key: string, id: string, format?: string) {
  const res = await h.request('GET', `/v1/notes/${id}/export${format ? `?format=${format}` : ''}`, { key });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res;
}

async function segmentsOf(h: Harness, key: string, id: string) {
  return (await h.request<NoteDetail>('GET', `/v1/notes/${id}?include=segments`, { key })).body.segments;
}

for (const dialect of DIALECTS) {
  describe(`GET /v1/notes/:id/export (${dialect})`, () => {
    const h = useHarness(dialect);

    it('md (the default): front matter, checkboxes, highlights, transcript; attachment named by date and title', async () => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey, {
        title: 'Q3 budget: review',
        tags: ['finance', 'Planning'],
        created_at: '2026-09-14T09:00:00Z',
        speakers: [{ label: 'Speaker 1', name: 'Maya Chen' }],
        segments: SEGMENTS,
      });
      await runDueJobs(h.deps);
      const res = await exported(h, t.liveKey, note.id);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="2026-09-14 Q3 budget review.md"; filename*=UTF-8''2026-09-14%20Q3%20budget%20review.md`,
      );
      const md = res.text;
      expect(md.startsWith('---\ntitle: "Q3 budget: review"\ndate: "2026-09-14T09:00:00.000Z"\n')).toBe(true);
      expect(md).toContain('tags:\n  - "finance"\n  - "Planning"\n');
      expect(md).toContain('speakers:\n  - "Maya Chen"\n  - "Speaker 2"\n  - "Speaker 3"\n');
      expect(md).toMatch(/## Action items\n\n- \[ \] .*forecast.*\(@Speaker 2/);
      expect(md).toMatch(/## Highlights\n\n(- \[\d+:\d\d\] .+\n)+/);
      expect(md).toContain('- [0:14] Key point: the budget was exceeded');
      expect(md).toContain('**Maya Chen** [0:00]: Thanks for joining the Q3 budget review.');
      expect(md).toContain('**Speaker 3** [1:00:00]: Sorry, I joined late.');
      expect((await exported(h, t.liveKey, note.id, 'md')).text).toBe(md);
    });

    it('txt, json and the subtitle formats carry the right media types', async () => {
      const t = await h.tenant();
      const note = await createNote(h, t.testKey, { title: 'Réunion été', segments: SEGMENTS });
      const txt = await exported(h, t.testKey, note.id, 'txt');
      expect(txt.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(txt.text.split('\n')[0]).toBe('Réunion été');
      expect(txt.text).toContain('Speaker 3: Sorry, I joined late.');
      const json = await exported(h, t.testKey, note.id, 'json');
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(json.body).toEqual(
        (await h.request('GET', `/v1/notes/${note.id}?include=segments`, { key: t.testKey })).body,
      );
      expect((await exported(h, t.testKey, note.id, 'srt')).headers.get('content-type')).toBe(
        'application/x-subrip; charset=utf-8',
      );
      const vtt = await exported(h, t.testKey, note.id, 'vtt');
      expect(vtt.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
      expect(vtt.headers.get('content-disposition')).toContain("filename*=UTF-8''");
      expect(vtt.text.startsWith('WEBVTT\n\n00:00:00.000 --> 00:00:06.000\n<v Speaker 1>Thanks')).toBe(true);
    });

    it.each(['srt', 'vtt'])(
      'round trip: the exported %s, posted as a transcript, gives the same segments',
      async (format) => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { segments: SEGMENTS });
        const file = await exported(h, t.liveKey, note.id, format);
        const again = await createNote(h, t.liveKey, { transcript: file.text });
        expect(await segmentsOf(h, t.liveKey, again.id)).toEqual(await segmentsOf(h, t.liveKey, note.id));
        // Named speakers come back under their display names, everything else unchanged.
        await h.request('PATCH', `/v1/notes/${note.id}/speakers`, {
          key: t.liveKey,
          body: { speakers: [{ label: 'Speaker 1', name: 'Maya Chen' }] },
        });
        const named = await exported(h, t.liveKey, note.id, format);
        const third = await createNote(h, t.liveKey, { transcript: named.text });
        expect(await segmentsOf(h, t.liveKey, third.id)).toEqual(
          SEGMENTS.map((s) => ({ ...s, speaker: s.speaker === 'Speaker 1' ? 'Maya Chen' : s.speaker })),
        );
      },
    );
  });
}
