import { clock } from '../../src/lib/time.ts';
import { type Html, html } from '../html.ts';
import { csrfField, duration, page, type Shell, when } from '../layout.ts';

export interface NoteListItem {
  id: string;
  title: string;
  summary: string;
  created_at: string;
  duration_seconds: number;
  tags: string[];
}

export interface SearchHit {
  note_id: string;
  title: string;
  snippet: string;
  relevance: number;
  created_at: string;
}

/** An answer of POST /v1/ask as the Notes page shows it. */
export interface AskView {
  answered: boolean;
  answer: string;
  citations: {
    note_id: string;
    title: string;
    created_at: string;
    quote: string;
    speaker?: string;
    start_ms?: number;
  }[];
}

export interface NotesQuery {
  q?: string;
  ask?: string;
  tag?: string;
  from?: string;
  to?: string;
  page: number;
}

function pageHref(query: NotesQuery, pageNumber: number): string {
  const p = new URLSearchParams();
  if (query.tag) p.set('tag', query.tag);
  if (query.from) p.set('from', query.from);
  if (query.to) p.set('to', query.to);
  if (pageNumber > 1) p.set('page', String(pageNumber));
  const s = p.toString();
  return s ? `/?${s}` : '/';
}

function tagList(tags: string[]): Html {
  if (!tags.length) return html``;
  return html`<ul class="tags" aria-label="Tags">${tags.map(
    (t) => html`<li><a href="/?tag=${encodeURIComponent(t)}">${t}</a></li>`,
  )}</ul>`;
}

export function notesPage(
  shell: Shell,
  data: {
    query: NotesQuery;
    notes?: { items: NoteListItem[]; total: number; perPage: number };
    results?: SearchHit[];
    answer?: AskView;
    error?: string;
  },
): Html {
  const { query } = data;
  const searchForm = html`<form method="get" action="/" role="search" class="search">
  <label for="q">Search notes</label>
  <div class="row"><input id="q" name="q" type="search" value="${query.q ?? ''}" placeholder="e.g. budget went over plan">
  <button type="submit" class="primary">Search</button></div>
</form>`;
  const askForm = html`<form method="get" action="/" class="search ask">
  <label for="ask">Ask your notes</label>
  <div class="row"><input id="ask" name="ask" value="${query.ask ?? ''}" maxlength="1000" placeholder="e.g. What did we decide about the budget?">
  <button type="submit">Ask</button></div>
</form>`;
  const filters = html`<form method="get" action="/" class="filters" aria-label="Filter notes">
  <div><label for="tag">Tag</label><input id="tag" name="tag" value="${query.tag ?? ''}"></div>
  <div><label for="from">From</label><input id="from" name="from" type="date" value="${query.from ?? ''}"></div>
  <div><label for="to">To</label><input id="to" name="to" type="date" value="${query.to ?? ''}"></div>
  <div class="actions"><button type="submit">Filter</button> <a href="/">Clear</a></div>
</form>`;
  let body: Html;
  if (data.error) {
    body = html`<p class="flash error" role="alert">${data.error}</p>`;
  } else if (data.answer) {
    body = html`<h2>Answer to “${query.ask}”</h2>${askAnswer(data.answer)}<p><a href="/">All notes</a></p>`;
  } else if (data.results) {
    body = html`<h2>Results for “${query.q}”</h2>
${
  data.results.length
    ? html`<ol class="cards results">${data.results.map(
        (r) => html`<li>
  <h3><a href="/notes/${r.note_id}">${r.title}</a></h3>
  <p class="meta"><span class="relevance">Relevance ${Math.round(r.relevance * 100)}%</span> · ${when(r.created_at)}</p>
  <p class="snippet">${r.snippet}</p>
</li>`,
      )}</ol>`
    : html`<p>No relevant notes found. Try other words.</p>`
}
<p><a href="/">All notes</a></p>`;
  } else {
    const notes = data.notes!;
    const pages = Math.max(1, Math.ceil(notes.total / notes.perPage));
    body = html`<p class="count">${notes.total} ${notes.total === 1 ? 'note' : 'notes'}${query.tag ? html` tagged “${query.tag}”` : ''}</p>
${
  notes.items.length
    ? html`<ol class="cards">${notes.items.map(
        (n) => html`<li>
  <h2 class="h3"><a href="/notes/${n.id}">${n.title}</a></h2>
  <p class="meta">${when(n.created_at)}${n.duration_seconds ? html` · ${duration(n.duration_seconds)}` : ''}</p>
  ${n.summary ? html`<p class="summary">${n.summary.length > 240 ? `${n.summary.slice(0, 237)}…` : n.summary}</p>` : ''}
  ${tagList(n.tags)}
</li>`,
      )}</ol>`
    : html`<p>No notes yet. <a href="/upload">Upload a recording or a transcript</a>.</p>`
}
${
  pages > 1
    ? html`<nav aria-label="Pages" class="pager">
  ${query.page > 1 ? html`<a href="${pageHref(query, query.page - 1)}" rel="prev">Previous</a>` : html`<span></span>`}
  <span>Page ${query.page} of ${pages}</span>
  ${query.page < pages ? html`<a href="${pageHref(query, query.page + 1)}" rel="next">Next</a>` : html`<span></span>`}
</nav>`
    : ''
}`;
  }
  return page(
    shell,
    { title: 'Notes', section: 'notes' },
    html`<h1>Notes</h1>${searchForm}${askForm}${filters}${body}`,
  );
}

/** The answer with its citations; each opens its note at the quoted line (`#at-<ms>` seeks the audio there). */
function askAnswer(answer: AskView): Html {
  if (!answer.answered) return html`<p class="answer">${answer.answer}</p>`;
  const href = (c: AskView['citations'][number]) =>
    c.start_ms !== undefined ? `/notes/${c.note_id}#at-${c.start_ms}` : `/notes/${c.note_id}`;
  return html`<p class="answer">${answer.answer}</p>
<ol class="citations">${answer.citations.map(
    (c) =>
      html`<li><a href="${href(c)}">${c.title}</a> <span class="meta">${when(c.created_at)}${
        c.start_ms !== undefined ? html` · ${clock(c.start_ms)}` : ''
      }${c.speaker ? html` · ${c.speaker}` : ''}</span><blockquote>${c.quote}</blockquote></li>`,
  )}</ol>`;
}

export interface NoteDetailView {
  id: string;
  title: string;
  summary: string;
  status: 'processing' | 'ready' | 'failed';
  failure_reason?: string;
  created_at: string;
  duration_seconds: number;
  recording_id?: string;
  tags: string[];
  action_items: {
    id: string;
    text: string;
    assignee?: string;
    due?: string;
    status: 'pending' | 'completed';
  }[];
  highlights: { id: string; timestamp_ms: number; text: string }[];
  speakers: { label: string; name: string }[];
  segments?: { speaker: string; start_ms: number; end_ms: number; text: string }[];
}

/** One action item: a checkbox labelled with its text that completes or reopens it, and an edit form. */
export function actionItemRow(
  csrf: string,
  item: { id: string; text: string; assignee?: string; due?: string; status: 'pending' | 'completed' },
  back: string,
  extra?: Html,
): Html {
  const done = item.status === 'completed';
  return html`<li class="item${done ? ' done' : ''}" id="item-${item.id}">
  <form method="post" action="/action-items/${item.id}" class="check">
    ${csrfField(csrf)}
    <input type="hidden" name="back" value="${back}">
    <input type="hidden" name="status" value="pending">
    <input type="checkbox" id="check-${item.id}" name="status" value="completed"${done ? html` checked` : ''} data-autosubmit>
    <label for="check-${item.id}">${item.text}</label>
    <noscript><button type="submit">Save</button></noscript>
  </form>
  <p class="meta">${item.assignee ? html`<span>Assignee: ${item.assignee}</span>` : ''}${item.due ? html` <span>Due ${item.due}</span>` : ''}${extra ?? ''}</p>
  <details>
    <summary>Edit<span class="visually-hidden"> “${item.text}”</span></summary>
    <form method="post" action="/action-items/${item.id}" class="stack compact">
      ${csrfField(csrf)}
      <input type="hidden" name="back" value="${back}">
      <input type="hidden" name="edit" value="1">
      <label for="text-${item.id}">Text</label>
      <input id="text-${item.id}" name="text" value="${item.text}" required>
      <label for="assignee-${item.id}">Assignee</label>
      <input id="assignee-${item.id}" name="assignee" value="${item.assignee ?? ''}">
      <label for="due-${item.id}">Due</label>
      <input id="due-${item.id}" name="due" type="date" value="${item.due ?? ''}">
      <button type="submit">Save</button>
    </form>
  </details>
</li>`;
}

/** A speaker: its display name (and label when they differ) and "Rename speaker" to set a new name. */
function speakerRow(csrf: string, noteId: string, s: { label: string; name: string }, i: number): Html {
  return html`<li class="speaker-row">
  <span class="speaker">${s.name}</span>${s.name !== s.label ? html` <span class="hint">(${s.label})</span>` : ''}
  <details>
    <summary>Rename speaker<span class="visually-hidden"> ${s.name}</span></summary>
    <form method="post" action="/notes/${noteId}/speakers" class="stack compact">
      ${csrfField(csrf)}
      <input type="hidden" name="label" value="${s.label}">
      <label for="speaker-name-${i}">New name for ${s.label}</label>
      <input id="speaker-name-${i}" name="name" value="${s.name}" required maxlength="100">
      <button type="submit">Rename</button>
    </form>
  </details>
</li>`;
}

export function notePage(shell: Shell, note: NoteDetailView, options: { hasAudio: boolean }): Html {
  const names = new Map(note.speakers.map((s) => [s.label, s.name]));
  const hasAudio = options.hasAudio;
  const back = `/notes/${note.id}`;
  const status =
    note.status === 'processing'
      ? html`<p class="state processing" role="status" data-poll="/notes/${note.id}/status" data-status="processing">Processing… This page updates by itself when the note is ready.</p>`
      : note.status === 'failed'
        ? html`<p class="state failed" role="alert">Processing failed: ${note.failure_reason ?? 'unknown reason'}</p>`
        : '';
  const seek = (ms: number) =>
    hasAudio
      ? html`<button type="button" class="time" data-seek="${ms}" aria-label="Play from ${clock(ms)}">${clock(ms)}</button>`
      : html`<span class="time">${clock(ms)}</span>`;
  const body = html`<p class="crumbs"><a href="/">Notes</a></p>
<h1>${note.title}</h1>
<p class="meta">${when(note.created_at)}${note.duration_seconds ? html` · ${duration(note.duration_seconds)}` : ''}</p>
${status}
${note.tags.length ? html`<ul class="tags" aria-label="Tags">${note.tags.map((t) => html`<li><a href="/?tag=${encodeURIComponent(t)}">${t}</a></li>`)}</ul>` : ''}
<details class="edit">
  <summary>Edit title and tags</summary>
  <form method="post" action="/notes/${note.id}" class="stack compact">
    ${csrfField(shell.csrf)}
    <label for="title">Title</label>
    <input id="title" name="title" value="${note.title}" required maxlength="200">
    <label for="tags">Tags</label>
    <input id="tags" name="tags" value="${note.tags.join(', ')}" aria-describedby="tags-hint">
    <p class="hint" id="tags-hint">Separate tags with commas.</p>
    <button type="submit" class="primary">Save</button>
  </form>
</details>
${hasAudio ? html`<audio controls preload="metadata" src="/notes/${note.id}/audio" aria-label="Recording"></audio>` : ''}
<section aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
${note.summary ? html`<p>${note.summary}</p>` : html`<p class="hint">${note.status === 'processing' ? 'Not written yet.' : 'No summary.'}</p>`}
</section>
<section aria-labelledby="items-h"><h2 id="items-h">Action items</h2>
${note.action_items.length ? html`<ul class="items">${note.action_items.map((i) => actionItemRow(shell.csrf, i, back))}</ul>` : html`<p class="hint">None.</p>`}
</section>
<section aria-labelledby="highlights-h"><h2 id="highlights-h">Highlights</h2>
${note.highlights.length ? html`<ul class="highlights">${note.highlights.map((h) => html`<li>${seek(h.timestamp_ms)} <span>${h.text}</span></li>`)}</ul>` : html`<p class="hint">None.</p>`}
</section>
${
  note.speakers.length
    ? html`<section aria-labelledby="speakers-h"><h2 id="speakers-h">Speakers</h2>
<ul class="speakers">${note.speakers.map((s, i) => speakerRow(shell.csrf, note.id, s, i))}</ul>
</section>`
    : ''
}
<section aria-labelledby="transcript-h"><h2 id="transcript-h">Transcript</h2>
${
  note.segments?.length
    ? html`<ol class="transcript">${note.segments.map(
        (s) =>
          html`<li id="at-${s.start_ms}">${seek(s.start_ms)} <span class="speaker">${names.get(s.speaker) ?? s.speaker}</span> <span class="text">${s.text}</span></li>`,
      )}</ol>`
    : html`<p class="hint">${note.status === 'processing' ? 'Not transcribed yet.' : 'No transcript.'}</p>`
}
</section>
<section aria-labelledby="delete-h" class="danger-zone"><h2 id="delete-h">Delete</h2>
<details>
  <summary class="danger">Delete note</summary>
  <form method="post" action="/notes/${note.id}/delete" class="stack compact">
    ${csrfField(shell.csrf)}
    <p><strong>This is permanent.</strong> The note, its transcript, recording, action items and highlights are deleted and cannot be restored.</p>
    <button type="submit" class="danger">Delete permanently</button>
  </form>
</details>
</section>`;
  return page(shell, { title: note.title, section: 'notes' }, body);
}
