import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { freshId } from '../helpers/routes.ts';
import { createNote } from './notes.fixtures.ts';

const TRANSCRIPT = 'Speaker 1: Hello there.\nSpeaker 2: Hi.';

for (const dialect of DIALECTS) {
  describe(`PATCH /v1/notes/:id/speakers errors (${dialect})`, () => {
    const h = useHarness(dialect);

    it.each([
      ['an empty body', {}, 'parameter_invalid', undefined],
      ['an empty speakers list', { speakers: [] }, 'parameter_invalid', 'speakers'],
      ['an unknown field', { names: [] }, 'parameter_unknown', 'names'],
      [
        'an unknown field in an entry',
        { speakers: [{ label: 'Speaker 1', name: 'A', x: 1 }] },
        'parameter_unknown',
        'speakers.0.x',
      ],
      [
        'a name that is empty after trimming',
        { speakers: [{ label: 'Speaker 1', name: '   ' }] },
        'parameter_invalid',
        'speakers.0.name',
      ],
      [
        'a name over 100 characters',
        { speakers: [{ label: 'Speaker 1', name: 'x'.repeat(101) }] },
        'parameter_invalid',
        'speakers.0.name',
      ],
      [
        'a name with a newline',
        { speakers: [{ label: 'Speaker 1', name: 'A\nB' }] },
        'parameter_invalid',
        'speakers.0.name',
      ],
      [
        'a name that is not a string',
        { speakers: [{ label: 'Speaker 1', name: 7 }] },
        'parameter_invalid',
        'speakers.0.name',
      ],
      ['a missing label', { speakers: [{ name: 'A' }] }, 'parameter_missing', 'speakers.0.label'],
      [
        'the same label twice',
        {
          speakers: [
            { label: 'Speaker 1', name: 'A' },
            { label: 'Speaker 1', name: 'B' },
          ],
        },
        'parameter_invalid',
        'speakers.1.label',
      ],
      [
        'a merge into itself',
        { merge: { from: 'Speaker 1', into: 'Speaker 1' } },
        'parameter_invalid',
        'merge.into',
      ],
      ['a merge without into', { merge: { from: 'Speaker 1' } }, 'parameter_missing', 'merge.into'],
      ['speakers that is not an array', { speakers: 'Speaker 1' }, 'parameter_invalid', 'speakers'],
    ])('400 for %s', async (_, body, code, param) => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey, { transcript: TRANSCRIPT });
      const res = await h.request('PATCH', `/v1/notes/${note.id}/speakers`, { key: t.liveKey, body });
      expectApiError(res, 400, code);
      if (param) expect(res.body.error.param).toBe(param);
    });

    it.each([
      [
        'a label the note does not have',
        { speakers: [{ label: 'Speaker 9', name: 'A' }] },
        'speakers.0.label',
      ],
      ['a merge from an unknown label', { merge: { from: 'Speaker 9', into: 'Speaker 1' } }, 'merge.from'],
      ['a merge into an unknown label', { merge: { from: 'Speaker 1', into: 'speaker 2' } }, 'merge.into'],
      [
        'naming the label that a merge removes',
        { merge: { from: 'Speaker 2', into: 'Speaker 1' }, speakers: [{ label: 'Speaker 2', name: 'A' }] },
        'speakers.0.label',
      ],
    ])('400 naming the known labels for %s, and nothing changes', async (_, body, param) => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey, { transcript: TRANSCRIPT });
      const res = await h.request('PATCH', `/v1/notes/${note.id}/speakers`, { key: t.liveKey, body });
      expectApiError(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe(param);
      expect(res.body.error.message).toContain("'Speaker 1', 'Speaker 2'");
      const after = await h.request('GET', `/v1/notes/${note.id}?include=segments`, { key: t.liveKey });
      expect(after.body.speakers).toEqual(note.speakers);
      expect(after.body.transcript).toBe(note.transcript);
    });

    it('400 for malformed JSON, 415 for a non-JSON body', async () => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey, { transcript: TRANSCRIPT });
      const bad = await h.request('PATCH', `/v1/notes/${note.id}/speakers`, {
        key: t.liveKey,
        raw: '{"speakers": [',
        headers: { 'content-type': 'application/json' },
      });
      expectApiError(bad, 400, 'body_invalid_json');
      const text = await h.request('PATCH', `/v1/notes/${note.id}/speakers`, {
        key: t.liveKey,
        raw: 'speakers',
        headers: { 'content-type': 'text/plain' },
      });
      expectApiError(text, 415, 'unsupported_media_type');
    });

    it('404 for an id that does not exist or is not a note id', async () => {
      const t = await h.tenant();
      for (const id of [freshId('note_'), 'nope', 'note_%00']) {
        const res = await h.request('PATCH', `/v1/notes/${id}/speakers`, {
          key: t.liveKey,
          body: { speakers: [{ label: 'Speaker 1', name: 'A' }] },
        });
        expectApiError(res, 404, 'resource_not_found');
      }
    });
  });
}
