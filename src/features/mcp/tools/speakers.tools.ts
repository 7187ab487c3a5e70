import { z } from 'zod';
import { UpdateSpeakersBody, UpdateSpeakersResponse } from '../../notes/speakers.schema.ts';
import { updateSpeakers } from '../../notes/speakers.service.ts';
import { defined, parseOrThrow } from '../mcp.schema.ts';
import { noteIdArg } from './notes.tools.ts';
import { defineTool, OVERWRITING_UPDATE } from './tool.ts';

/** The MCP side of `PATCH /v1/notes/:id/speakers`. */
export const renameSpeakersTool = defineTool({
  name: 'rename_speakers',
  title: 'Name or merge the speakers of a note',
  description:
    'Gives the generic speaker labels of a note ("Speaker 1", "Speaker 2") display names, and/or merges two labels ' +
    'that are the same person (every turn of `merge.from` becomes a turn of `merge.into`; applied before the ' +
    'names). Read the labels with get_note (speakers) first. The transcript, the speakers list, action-item ' +
    'assignees and search follow. Returns the note id and its speakers after the change.',
  scope: 'notes:write',
  input: z.strictObject({
    note_id: noteIdArg,
    speakers: z
      .array(
        z.strictObject({
          label: z.string().describe('The label as the note has it, e.g. "Speaker 1".'),
          name: z
            .string()
            .meta({ minLength: 1, maxLength: 100 })
            .describe('The display name, 1–100 characters.'),
        }),
      )
      .optional()
      .describe('Display names to set, one entry per label.'),
    merge: z
      .strictObject({
        from: z.string().describe('The label that goes away.'),
        into: z.string().describe('The label that remains.'),
      })
      .optional()
      .describe('Two labels of the same person to merge into one.'),
  }),
  output: UpdateSpeakersResponse,
  annotations: OVERWRITING_UPDATE,
  notFoundHint:
    'Find valid note ids (note_…) with list_notes or search_notes. A live key and a test key see separate data, ' +
    'so ids never carry over between them.',
  run: ({ deps, actor }, { note_id, ...changes }) =>
    updateSpeakers(deps, actor, note_id, parseOrThrow(UpdateSpeakersBody, defined(changes))),
});
