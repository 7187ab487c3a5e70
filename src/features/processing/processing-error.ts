/** A failure whose message is meant for the note's owner (shown as `failure_reason`). */
export class ProcessingError extends Error {
  override name = 'ProcessingError';
}

/** The reason a note fails with when its analysis ran out of time on every attempt. */
export function overBudget(budgetMs: number): ProcessingError {
  const limit = budgetMs % 1000 === 0 ? `${budgetMs / 1000} seconds` : `${budgetMs} ms`;
  return new ProcessingError(
    `Analysis was stopped because it took longer than the ${limit} allowed. The transcript may be too long or too unusual (for example one very long word or line) to analyze; a shorter or cleaned-up transcript can be submitted as a new note.`,
  );
}
