import { describe, expect, it } from 'vitest';
import { resolveDueDate } from '../../src/features/processing/resolve-due-date.ts';

/** Monday 23 November 2026. */
const MONDAY = '2026-11-23T10:00:00.000Z';

describe('resolveDueDate', () => {
  it.each([
    ['by Friday', '2026-11-27'],
    ['tomorrow', '2026-11-24'],
    ['next Tuesday', '2026-12-01'],
    ['this Thursday', '2026-11-26'],
    ['before December 3rd', '2026-12-03'],
    ['in two weeks', '2026-12-07'],
    ['by the end of the week', '2026-11-27'],
    ['by end of month', '2026-11-30'],
    ['by EOD', '2026-11-23'],
  ])('"Send the report %s" is due %s', (phrase, due) => {
    expect(resolveDueDate(`Send the report ${phrase}.`, MONDAY)).toBe(due);
  });

  it('resolves "by the 15th" to this month when it is still ahead, else the next month', () => {
    expect(resolveDueDate('Book it by the 25th.', MONDAY)).toBe('2026-11-25');
    expect(resolveDueDate('Book it by the 15th.', MONDAY)).toBe('2026-12-15');
  });

  it('skips months without that day', () => {
    expect(resolveDueDate('File it by the 31st.', '2026-11-05T09:00:00Z')).toBe('2026-12-31');
    expect(resolveDueDate('File it by the 30th.', '2027-01-31T09:00:00Z')).toBe('2027-03-30');
  });

  it('takes a weekday said on that weekday as the next one, and "on Friday" as a deadline', () => {
    expect(resolveDueDate('Send it by Monday.', MONDAY)).toBe('2026-11-30');
    expect(resolveDueDate('I will call her on Wednesday.', MONDAY)).toBe('2026-11-25');
    expect(resolveDueDate('Send it by November 23.', MONDAY)).toBe('2026-11-23');
  });

  it('resolves relative to the recording date, not today', () => {
    expect(resolveDueDate('Ship it by Friday.', '2024-02-26T12:00:00Z')).toBe('2024-03-01');
  });

  it('ignores dates that are not deadlines', () => {
    expect(resolveDueDate('We met the vendor last Friday.', MONDAY)).toBeUndefined();
    expect(resolveDueDate('Send the report.', MONDAY)).toBeUndefined();
    expect(resolveDueDate('I talked to Sam two days ago.', MONDAY)).toBeUndefined();
    expect(resolveDueDate('Today we need to finalize the budget.', MONDAY)).toBeUndefined();
    expect(resolveDueDate('Finalize the budget for the March release.', MONDAY)).toBeUndefined();
    expect(resolveDueDate('Can you make a folder for the minutes?', MONDAY)).toBeUndefined();
  });

  it('gives nothing for an unreadable recording date', () => {
    expect(resolveDueDate('Send it tomorrow.', 'not a date')).toBeUndefined();
  });
});
