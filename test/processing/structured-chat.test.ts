import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnalysisInput } from '../../src/features/processing/analyze-builtin.ts';
import { nextStart, promptLines, takeLines } from '../../src/features/processing/providers/analysis-parts.ts';
import { recognizeContextOverflow } from '../../src/features/processing/providers/context-errors.ts';
import { estimateTokens, minimumTokens } from '../../src/features/processing/providers/count-tokens.ts';
import { extractJsonObject } from '../../src/features/processing/providers/structured-chat.ts';
import { overflowBody } from './fake-model.ts';
import { countPromptTokens } from './openai-server.ts';

describe('recognizeContextOverflow', () => {
  it('reads the window from the real bodies of llama.cpp, vLLM and OpenAI', () => {
    for (const [overflow, window] of [
      ['llamacpp', 4096],
      ['vllm', 8192],
      ['openai', 16_385],
    ] as const) {
      const body = JSON.stringify(overflowBody({ contextTokens: window, overflow }, window + 900));
      expect(recognizeContextOverflow(400, body)).toEqual({ contextTokens: window });
    }
    // LM Studio's wording, and llama.cpp's older one without numbers.
    expect(
      recognizeContextOverflow(
        400,
        '{"error":"Trying to keep the first 5210 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough."}',
      ),
    ).toEqual({ contextTokens: 4096 });
    expect(
      recognizeContextOverflow(
        400,
        '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}',
      ),
    ).toEqual({});
  });

  it('leaves other errors alone', () => {
    expect(
      recognizeContextOverflow(400, '{"error":{"message":"Unsupported response_format type"}}'),
    ).toBeUndefined();
    expect(
      recognizeContextOverflow(401, '{"error":{"message":"maximum context length is 10 tokens"}}'),
    ).toBeUndefined();
    expect(recognizeContextOverflow(500, 'maximum context length is 10 tokens')).toBeUndefined();
  });
});

describe('extractJsonObject', () => {
  it('finds the object in bare JSON, prose and code fences, braces in strings included', () => {
    const json = '{"title":"A {b} \\" }","n":[{"x":1}]}';
    expect(extractJsonObject(json)).toBe(json);
    expect(extractJsonObject(`Sure! Here it is:\n${json}\nAnything else?`)).toBe(json);
    expect(extractJsonObject(`\`\`\`json\n${json}\n\`\`\``)).toBe(json);
    expect(extractJsonObject('no object here')).toBeUndefined();
    expect(extractJsonObject('{"unterminated": ')).toBeUndefined();
  });

  it('takes linear time on adversarial text (one pass)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '"', '\\', 'a', ' ') }), (text) => {
        const found = extractJsonObject(text);
        if (found !== undefined) expect(text).toContain(found);
      }),
    );
    expect(extractJsonObject('{'.repeat(200_000))).toBeUndefined();
  });
});

describe('token counts', () => {
  it('estimate above and minimum below what a tokenizer counts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('budget', 'the', 'réunion', '会议', '2026', ':', 'Ünïcödé', '[12]'), {
          minLength: 1,
        }),
        (words) => {
          const text = words.join(' ');
          const counted = countPromptTokens({ messages: [{ content: text }] }) - 4;
          expect(minimumTokens(text)).toBeLessThanOrEqual(Math.max(counted, words.length));
          expect(estimateTokens(text)).toBeGreaterThanOrEqual(words.length);
        },
      ),
    );
  });
});

describe('parts of a transcript', () => {
  const input: AnalysisInput = {
    segments: [
      { speaker: 'S1', start_ms: 0, end_ms: 1, text: 'short line' },
      { speaker: 'S2', start_ms: 1, end_ms: 2, text: `${'word '.repeat(2000)}end` },
      { speaker: 'S1', start_ms: 2, end_ms: 3, text: 'last line' },
    ],
    speakers: [{ label: 'S1', name: 'Alice' }],
    createdAt: '2026-11-23T09:00:00.000Z',
  };

  it('cuts a long segment into lines of the same number, losing no word', () => {
    const lines = promptLines(input);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.every((l) => l.tokens <= 301)).toBe(true);
    const words = lines
      .filter((l) => l.segment === 1)
      .flatMap((l) => l.text.replace('[1] S2: ', '').split(' '));
    expect(words.join(' ')).toBe(input.segments[1]!.text);
  });

  it('moves forward on every part, with overlap', () => {
    const lines = promptLines(input);
    let start = 0;
    const covered = new Set<number>();
    for (let guard = 0; start < lines.length && guard < 100; guard++) {
      const end = takeLines(lines, start, 700, 1);
      expect(end).toBeGreaterThan(start);
      for (let i = start; i < end; i++) covered.add(i);
      if (end === lines.length) break;
      const next = nextStart(lines, start, end, 70);
      expect(next).toBeGreaterThan(start);
      expect(next).toBeLessThan(end);
      start = next;
    }
    expect(covered.size).toBe(lines.length);
  });
});
