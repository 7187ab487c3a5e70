import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRange } from '../../src/features/recordings/byte-range.ts';

describe('parseRange', () => {
  it('reads a header as the RFC 9110 pattern it replaces did (cubic on whitespace), in one pass', () => {
    const OLD = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i;
    const piece = fc.constantFrom('bytes', 'BYTES', '=', '-', ' ', '\t', '0', '7', '42', ',', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), fc.integer({ min: 0, max: 100 }), (parts, size) => {
        const header = parts.join('');
        const old = OLD.exec(header);
        const range = parseRange(header, size);
        if (!old || (old[1] === '' && old[2] === '')) expect(range).toEqual({ kind: 'whole' });
        else {
          // The same numbers read: the range is what the old groups say, as parseRange clamps it.
          const [start, end] = [old[1]!, old[2]!];
          const again = parseRange(`bytes=${start}-${end}`, size);
          expect(range, header).toEqual(again);
        }
      }),
      { numRuns: 5000 },
    );
    expect(parseRange(' bytes = 0 - 9 ', 100)).toEqual({ kind: 'partial', range: { start: 0, end: 9 } });
    expect(parseRange('bytes=-10', 100)).toEqual({ kind: 'partial', range: { start: 90, end: 99 } });
    expect(parseRange('bytes=5-', 100)).toEqual({ kind: 'partial', range: { start: 5, end: 99 } });
    expect(parseRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
  });

  it('answers at once a 16 KB header of tabs around the dash (it held the event loop for minutes)', () => {
    const tabs = '\t'.repeat(8_000);
    expect(parseRange(`bytes=${tabs}-${tabs}-`, 100)).toEqual({ kind: 'whole' });
    expect(parseRange(`bytes=${tabs}1${tabs}-${tabs}2${tabs}`, 100)).toEqual({
      kind: 'partial',
      range: { start: 1, end: 2 },
    });
  });
});
