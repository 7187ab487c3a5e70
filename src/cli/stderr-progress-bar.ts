import cliProgress from 'cli-progress';

/** A progress bar on stderr in the style every command shows; `format` says what it counts. */
export function stderrProgressBar(format: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    { stream: process.stderr, format, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
}
