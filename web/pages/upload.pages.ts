import type { ImportView } from '../../src/features/imports/import-run.service.ts';
import { type Html, html } from '../html.ts';
import { csrfField, page, type Shell } from '../layout.ts';

export function uploadPage(shell: Shell, options: { maxUploadMb: number; error?: string }): Html {
  return page(
    shell,
    { title: 'Upload', section: 'upload' },
    html`<h1>Upload</h1>
${options.error ? html`<p class="flash error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/upload" enctype="multipart/form-data" id="upload-form" class="stack">
  ${csrfField(shell.csrf)}
  <div class="drop">
    <label for="file">Audio or transcript file</label>
    <input id="file" name="file" type="file" accept="audio/*,.wav,.mp3,.m4a,.ogg,.opus,.webm,.flac,.txt,.vtt,.srt,.json" aria-describedby="file-hint">
    <p class="hint" id="file-hint">Drop a file here or choose one: audio (wav, mp3, m4a, ogg, webm, flac; up to ${options.maxUploadMb} MB) or a transcript (txt, vtt, srt, json).</p>
  </div>
  <label for="text">Or paste a transcript</label>
  <textarea id="text" name="text" rows="8" aria-describedby="text-hint"></textarea>
  <p class="hint" id="text-hint">One line per turn, such as “Maya: The budget is over by twelve percent.”, or WebVTT/SRT.</p>
  <label for="title">Title (optional)</label>
  <input id="title" name="title" maxlength="200">
  <label for="tags">Tags (optional)</label>
  <input id="tags" name="tags" aria-describedby="tags-hint">
  <p class="hint" id="tags-hint">Separate tags with commas.</p>
  <progress max="100" value="0" hidden aria-label="Upload progress"></progress>
  <p id="upload-status" role="status" class="hint"></p>
  <button type="submit" class="primary">Upload</button>
</form>
<h2 id="import-heading">Import an export</h2>
<form method="post" action="/upload" enctype="multipart/form-data" id="import-form" class="stack" aria-labelledby="import-heading">
  ${csrfField(shell.csrf)}
  <input type="hidden" name="what" value="export">
  <label for="export-file">Export file</label>
  <input id="export-file" name="file" type="file" accept=".zip,.json,application/zip,application/json" aria-describedby="export-hint" required>
  <p class="hint" id="export-hint">A Limitless export (ZIP), an Omi export (JSON) or a Minutes account export (ZIP); up to ${options.maxUploadMb} MB. Items imported before are skipped.</p>
  <label for="me">Your name (optional)</label>
  <input id="me" name="me" maxlength="200" aria-describedby="me-hint">
  <p class="hint" id="me-hint">Given to the speaker the export marks as the recorder's wearer.</p>
  <button type="submit">Import</button>
</form>`,
  );
}

/** An import's progress; while it runs, the page updates its counts by itself (data-import-poll). */
export function importPage(shell: Shell, view: ImportView): Html {
  const done = view.imported + view.skipped + view.failed;
  const label =
    view.status === 'running'
      ? 'Importing…'
      : view.status === 'completed'
        ? 'Import finished'
        : 'Import failed';
  return page(
    shell,
    { title: 'Import', section: 'upload' },
    html`<h1>Import</h1>
<section data-import-poll="/upload/imports/${view.id}/status" data-status="${view.status}" class="stack">
  <p id="import-status" role="status">${label}${view.source ? html` (${view.source})` : ''}</p>
  <progress id="import-progress" max="${String(Math.max(view.total, done, 1))}" value="${String(done)}" aria-label="Import progress"></progress>
  <dl class="counts">
    <dt>Imported</dt><dd data-count="imported">${String(view.imported)}</dd>
    <dt>Skipped (imported before)</dt><dd data-count="skipped">${String(view.skipped)}</dd>
    <dt>Failed</dt><dd data-count="failed">${String(view.failed)}</dd>
    <dt>Items</dt><dd data-count="total">${String(view.total)}</dd>
  </dl>
  ${
    view.errors.length
      ? html`<h2>Items that failed</h2>
  <ul class="import-errors">${view.errors.map((e) => html`<li><code>${e.item}</code>: ${e.message}</li>`)}</ul>`
      : ''
  }
  ${view.status === 'running' ? '' : html`<p><a href="/">Go to your notes</a></p>`}
</section>`,
  );
}
