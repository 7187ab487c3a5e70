import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/features/transcripts/parse-transcript.ts';
import { AppError } from '../../src/lib/errors.ts';

describe('parseTranscript', () => {
  describe('Label: text lines', () => {
    it('makes one turn per labelled line, with timings estimated from word counts', () => {
      const segments = parseTranscript('Alice: Good morning everyone.\nBob: Morning! Shall we start?');
      expect(segments.map((s) => [s.speaker, s.text])).toEqual([
        ['Alice', 'Good morning everyone.'],
        ['Bob', 'Morning! Shall we start?'],
      ]);
      expect(segments[0]!.start_ms).toBe(0);
      expect(segments[1]!.start_ms).toBe(segments[0]!.end_ms);
      expect(segments[1]!.end_ms).toBeGreaterThan(segments[1]!.start_ms);
    });

    it('appends unlabelled lines to the previous turn and merges consecutive lines of one speaker', () => {
      const segments = parseTranscript(
        'Alice: The budget is tight\nbecause of the trade show.\nAlice: We should cut travel.\n\nBob: Agreed.',
      );
      expect(segments.map((s) => [s.speaker, s.text])).toEqual([
        ['Alice', 'The budget is tight because of the trade show. We should cut travel.'],
        ['Bob', 'Agreed.'],
      ]);
    });

    it('gives text without any label to one default speaker', () => {
      expect(parseTranscript('Just a note to self.').map((s) => [s.speaker, s.text])).toEqual([
        ['Speaker 1', 'Just a note to self.'],
      ]);
    });

    it('accepts CRLF line ends and a byte order mark', () => {
      const segments = parseTranscript('\uFEFFAlice: Hi\r\nthere\r\nBob: Hello');
      expect(segments.map((s) => [s.speaker, s.text])).toEqual([
        ['Alice', 'Hi there'],
        ['Bob', 'Hello'],
      ]);
    });
  });

  describe('WebVTT', () => {
    it('reads <v Name> voices and cue timings, merging close cues of one speaker', () => {
      const vtt = [
        'WEBVTT',
        '',
        'NOTE exported by the meeting app',
        '',
        'intro',
        '00:00:01.000 --> 00:00:04.000',
        '<v Alice>Welcome to the review.</v>',
        '',
        '00:00:04.500 --> 00:00:06.250',
        '<v Alice>Let us begin.',
        '',
        '00:01:07.000 --> 00:01:09.500',
        '<v.loud Bob>I have <b>one</b> question.',
      ].join('\n');
      expect(parseTranscript(vtt)).toEqual([
        { speaker: 'Alice', start_ms: 1000, end_ms: 6250, text: 'Welcome to the review. Let us begin.' },
        { speaker: 'Bob', start_ms: 67_000, end_ms: 69_500, text: 'I have one question.' },
      ]);
    });

    it('accepts mm:ss.ttt timings and hours above 9', () => {
      const vtt =
        'WEBVTT\n\n00:05.000 --> 00:07.500\n<v Ann>Short.\n\n10:00:00.000 --> 10:00:02.000\n<v Ben>Late.';
      expect(parseTranscript(vtt).map((s) => [s.speaker, s.start_ms, s.end_ms])).toEqual([
        ['Ann', 5000, 7500],
        ['Ben', 36_000_000, 36_002_000],
      ]);
    });
  });

  describe('SRT', () => {
    it('reads numbered cues with comma milliseconds and "Name:" speakers', () => {
      const srt = [
        '1',
        '00:00:01,000 --> 00:00:03,000',
        'Alice: Are we on track?',
        '',
        '2',
        '00:00:05,000 --> 00:00:08,500',
        'Bob: Yes, the release is on',
        'schedule for Friday.',
      ].join('\n');
      expect(parseTranscript(srt)).toEqual([
        { speaker: 'Alice', start_ms: 1000, end_ms: 3000, text: 'Are we on track?' },
        { speaker: 'Bob', start_ms: 5000, end_ms: 8500, text: 'Yes, the release is on schedule for Friday.' },
      ]);
    });

    it('keeps the previous speaker for a cue without one, and a default speaker before any', () => {
      const srt = '1\n00:00:00,000 --> 00:00:01,000\nHello.\n\n2\n00:00:10,000 --> 00:00:11,000\nStill me.';
      expect(parseTranscript(srt).map((s) => [s.speaker, s.text])).toEqual([
        ['Speaker 1', 'Hello.'],
        ['Speaker 1', 'Still me.'],
      ]);
    });
  });

  describe('which prefixes are speaker labels', () => {
    it('takes a label alone on its line as the speaker of the lines below it', () => {
      const segments = parseTranscript('Alice:\nHello there\nBob:\nHi, Alice');
      expect(segments.map((s) => [s.speaker, s.text])).toEqual([
        ['Alice', 'Hello there'],
        ['Bob', 'Hi, Alice'],
      ]);
    });

    it('keeps prose with a colon inside the turn instead of inventing a speaker', () => {
      const segments = parseTranscript(
        'Ana: We should ship.\nnote to self: call Bo\nsee http: example\nBen: ok',
      );
      expect(segments.map((s) => s.speaker)).toEqual(['Ana', 'Ben']);
      expect(segments[0]!.text).toBe('We should ship. note to self: call Bo see http: example');
    });

    it('accepts lower-case labels that recur', () => {
      const segments = parseTranscript('me: one\nyou: two\nme: three\nyou: four');
      expect(segments.map((s) => s.speaker)).toEqual(['me', 'you', 'me', 'you']);
    });
  });

  describe('empty input', () => {
    it.each([
      ['empty', ''],
      ['whitespace', '  \n\t\n '],
      ['WebVTT header only', 'WEBVTT\n\n'],
      ['cues without text', 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n\n'],
    ])('rejects %s input as parameter_invalid on transcript', (_, input) => {
      let error: unknown;
      try {
        parseTranscript(input);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'parameter_invalid', details: { param: 'transcript' } });
    });
  });
});
