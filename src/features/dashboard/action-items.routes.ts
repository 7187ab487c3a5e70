import type { Hono } from 'hono';
import { actionItemsPage, type StatusFilter } from '../../../web/pages/action-items.pages.ts';
import type { Deps } from '../../deps.ts';
import { zodIssueToError } from '../../http/validation.ts';
import { ListActionItemsQuery } from '../action-items/action-items.schema.ts';
import { listActionItems, listAssignees } from '../action-items/action-items.service.ts';
import { noteTitles } from '../notes/notes.service.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { render, shellOf } from './respond.ts';

const PER_PAGE = 50;

/** Action items across notes: Pending / Completed / All, by assignee, completed in place. */
export function actionItemsRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  app.get('/action-items', async (c) => {
    const actor = c.get('actor');
    const wanted = c.req.query('status');
    const status: StatusFilter = wanted === 'completed' || wanted === 'all' ? wanted : 'pending';
    const assignee = c.req.query('assignee')?.trim() || undefined;
    const pageParam = Number(c.req.query('page') ?? '1');
    const pageNumber = Number.isInteger(pageParam) && pageParam > 0 ? pageParam : 1;
    const parsed = ListActionItemsQuery.safeParse({
      status,
      page: String(pageNumber),
      per_page: String(PER_PAGE),
      ...(assignee ? { assignee } : {}),
    });
    if (!parsed.success) throw zodIssueToError(parsed.error);
    const [list, assignees] = await Promise.all([
      listActionItems(deps, actor, parsed.data),
      listAssignees(deps, actor),
    ]);
    const titles = await noteTitles(deps, actor, [...new Set(list.data.map((i) => i.note_id))]);
    return render(
      c,
      actionItemsPage(shellOf(c, assets.version), {
        status,
        ...(assignee ? { assignee } : {}),
        assignees,
        page: pageNumber,
        total: list.meta.total,
        perPage: PER_PAGE,
        items: list.data.map((i) => ({ ...i, note_title: titles.get(i.note_id) ?? 'Note' })),
      }),
    );
  });
}
