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
</form>`,
  );
}
