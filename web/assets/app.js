// Minutes dashboard: progressive enhancement only. Every page works without this file; it adds
// auto-submitting checkboxes, seeking the audio from highlights and the transcript, copy buttons,
// upload progress with drag and drop, and reloads a processing note once it is ready or failed.
(() => {
  document.addEventListener('change', (event) => {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.hasAttribute('data-autosubmit') && input.form) {
      input.form.requestSubmit();
    }
  });

  // A citation of an answer opens its note at `#at-<ms>`: the audio is set to that moment and played when allowed.
  const at = /^#at-(\d+)$/.exec(location.hash);
  const atAudio = document.querySelector('audio');
  if (at && atAudio) {
    const start = () => {
      atAudio.currentTime = Number(at[1]) / 1000;
      atAudio.play().catch(() => {});
    };
    if (atAudio.readyState >= 1) start();
    else atAudio.addEventListener('loadedmetadata', start, { once: true });
  }

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('[data-seek], [data-copy]') : null;
    if (!target) return;
    if (target.hasAttribute('data-seek')) {
      const audio = document.querySelector('audio');
      if (!audio) return;
      audio.currentTime = Number(target.getAttribute('data-seek')) / 1000;
      audio.play().catch(() => {});
      return;
    }
    const source = document.getElementById(target.getAttribute('data-copy') || '');
    if (!source) return;
    const text = source.textContent || '';
    const done = () => {
      const label = target.textContent;
      target.textContent = 'Copied';
      setTimeout(() => {
        target.textContent = label;
      }, 2000);
    };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, () => selectText(source));
    else selectText(source);
  });

  function selectText(node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  const poll = document.querySelector('[data-poll]');
  if (poll) {
    const url = poll.getAttribute('data-poll');
    const current = poll.getAttribute('data-status');
    const check = () => {
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then((res) => res.json())
        .then((body) => {
          if (body.status !== current) window.location.reload();
          else setTimeout(check, 1500);
        })
        .catch(() => setTimeout(check, 5000));
    };
    setTimeout(check, 1000);
  }

  // An import's page: its counts and bar follow the import; a finished import's page is shown in full.
  const importPoll = document.querySelector('[data-import-poll]');
  if (importPoll && importPoll.getAttribute('data-status') === 'running') {
    const url = importPoll.getAttribute('data-import-poll');
    const bar = document.getElementById('import-progress');
    const check = () => {
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then((res) => res.json())
        .then((body) => {
          if (body.status !== 'running') return window.location.reload();
          for (const key of ['imported', 'skipped', 'failed', 'total']) {
            const cell = importPoll.querySelector(`[data-count="${key}"]`);
            if (cell) cell.textContent = String(body[key]);
          }
          const done = body.imported + body.skipped + body.failed;
          if (bar) {
            bar.max = Math.max(body.total, done, 1);
            bar.value = done;
          }
          setTimeout(check, 1500);
        })
        .catch(() => setTimeout(check, 5000));
    };
    setTimeout(check, 1000);
  }

  const form = document.getElementById('upload-form');
  if (form instanceof HTMLFormElement) {
    const drop = form.querySelector('.drop');
    const file = form.querySelector('input[type=file]');
    const progress = form.querySelector('progress');
    const status = document.getElementById('upload-status');
    if (drop && file) {
      drop.addEventListener('dragover', (event) => {
        event.preventDefault();
        drop.classList.add('over');
      });
      drop.addEventListener('dragleave', () => drop.classList.remove('over'));
      drop.addEventListener('drop', (event) => {
        event.preventDefault();
        drop.classList.remove('over');
        if (event.dataTransfer?.files.length) {
          file.files = event.dataTransfer.files;
          status.textContent = `Selected ${event.dataTransfer.files[0].name}.`;
        }
      });
    }
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      progress.hidden = false;
      progress.value = 0;
      status.textContent = 'Uploading…';
      xhr.upload.addEventListener('progress', (e) => {
        if (!e.lengthComputable) return;
        progress.value = Math.round((e.loaded / e.total) * 100);
        status.textContent = `Uploading… ${progress.value}%`;
      });
      xhr.addEventListener('load', () => {
        const page = new DOMParser().parseFromString(xhr.responseText, 'text/html');
        const error = page.querySelector('.flash.error');
        if (xhr.status < 400 && !error) {
          status.textContent = 'Uploaded. Opening the note…';
          window.location.assign(xhr.responseURL);
        } else {
          progress.hidden = true;
          status.textContent = error ? error.textContent : `Upload failed (${xhr.status}).`;
        }
      });
      xhr.addEventListener('error', () => {
        progress.hidden = true;
        status.textContent = 'Upload failed: the connection was lost.';
      });
      xhr.send(new FormData(form));
    });
  }
})();
