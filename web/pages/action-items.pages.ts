import { type Html, html } from '../html.ts';
import { page, type Shell } from '../layout.ts';
import { actionItemRow } from './notes.pages.ts';

export type StatusFilter = 'pending' | 'completed' | 'all';

const FILTERS: [StatusFilter, string][] = [
  ['pending', 'Pending'],
  ['completed', 'Completed'],
  ['all', 'All'],
];

function href(status: StatusFilter, assignee: string | undefined, pageNumber = 1): string {
  const p = new URLSearchParams({ status });
  if (assignee) p.set('assignee', assignee);
  if (pageNumber > 1) p.set('page', String(pageNumber));
  return `/action-items?${p}`;
}

export function actionItemsPage(
  shell: Shell,
  data: {
    status: StatusFilter;
    assignee?: string;
    assignees: string[];
    page: number;
    total: number;
    perPage: number;
    items: {
      id: string;
      text: string;
      assignee?: string;
      due?: string;
      status: 'pending' | 'completed';
      note_id: string;
      note_title: string;
    }[];
  },
): Html {
  const back = href(data.status, data.assignee, data.page);
  const pages = Math.max(1, Math.ceil(data.total / data.perPage));
  return page(
    shell,
    { title: 'Action items', section: 'action-items' },
    html`<h1>Action items</h1>
<nav aria-label="Status" class="subnav"><ul>${FILTERS.map(
      ([s, label]) =>
        html`<li><a href="${href(s, data.assignee)}"${s === data.status ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav>
<form method="get" action="/action-items" class="filters">
  <input type="hidden" name="status" value="${data.status}">
  <div><label for="assignee">Assignee</label>
  <select id="assignee" name="assignee">
    <option value="">Anyone</option>
    ${data.assignees.map(
      (a) =>
        html`<option value="${a}"${a.toLowerCase() === data.assignee?.toLowerCase() ? html` selected` : ''}>${a}</option>`,
    )}
  </select></div>
  <div class="actions"><button type="submit">Filter</button></div>
</form>
<p class="count">${data.total} ${data.total === 1 ? 'item' : 'items'}</p>
${
  data.items.length
    ? html`<ul class="items">${data.items.map((i) =>
        actionItemRow(
          shell.csrf,
          i,
          back,
          html` <span>From <a href="/notes/${i.note_id}">${i.note_title}</a></span>`,
        ),
      )}</ul>`
    : html`<p class="hint">No action items here.</p>`
}
${
  pages > 1
    ? html`<nav aria-label="Pages" class="pager">
  ${data.page > 1 ? html`<a href="${href(data.status, data.assignee, data.page - 1)}" rel="prev">Previous</a>` : html`<span></span>`}
  <span>Page ${data.page} of ${pages}</span>
  ${data.page < pages ? html`<a href="${href(data.status, data.assignee, data.page + 1)}" rel="next">Next</a>` : html`<span></span>`}
</nav>`
    : ''
}`,
  );
}
