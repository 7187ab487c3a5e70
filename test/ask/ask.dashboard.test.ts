import { describe, expect, it } from 'vitest';
import { signedInClient } from '../dashboard/dashboard-client.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { addNote } from '../search/search.fixtures.ts';

describe.each(DIALECTS)('the Ask box on the dashboard Notes page (%s)', (dialect) => {
  const h = useHarness(dialect);

  it('answers with citations that open the note at the quoted line, from the session’s own notes only', async () => {
    const [a, b] = [await h.tenant(), await h.tenant()];
    const mine = await addNote(h, a, {
      title: 'Zeppelin hangar review',
      transcript:
        'Ann: Welcome, everyone.\nBen: The zeppelin hangar roof needs new steel beams before the winter storms.\nAnn: I decided the zeppelin hangar repair starts in October.',
    });
    await addNote(h, b, {
      title: 'Other zeppelin plans',
      transcript: 'Cat: Our zeppelin hangar is being sold to the museum next spring.',
    });
    const client = await signedInClient(h, a);
    const page = await client.get('/?ask=What%20was%20decided%20about%20the%20zeppelin%20hangar%20repair%3F');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ask your notes');
    expect(page.text).toContain('October');
    expect(page.text).toMatch(new RegExp(`href="/notes/${mine}#at-\\d+"`));
    expect(page.text).not.toContain('museum');
    const note = await client.get(`/notes/${mine}`);
    const at = /#at-(\d+)"/.exec(page.text)![1];
    expect(note.text).toContain(`id="at-${at}"`);

    const none = await client.get('/?ask=herbarium%20orchid%20watering');
    expect(none.status).toBe(200);
    expect(none.text).toContain('The notes hold nothing that answers this question.');
    const tooLong = await client.get(`/?ask=${'x'.repeat(1001)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('at most 1000 characters');
  });
});
