import { describe, expect, it } from 'vitest';
import { buildSeedDataset } from '../../src/features/test-mode/seed.dataset.ts';
import { renderTranscript } from '../../src/features/transcripts/render-transcript.ts';
import { isCalendarDate } from '../../src/lib/time.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-23T12:00:00.000Z');

describe('buildSeedDataset', () => {
  const notes = buildSeedDataset(NOW);

  it('is deterministic: the same time gives the same data set, another time the same content', () => {
    expect(buildSeedDataset(NOW)).toEqual(notes);
    const later = buildSeedDataset(NOW + 17 * DAY + 12_345);
    const content = (ns: typeof notes) =>
      ns.map((n) => ({
        title: n.title,
        summary: n.summary,
        tags: n.tags,
        speakers: n.speakers,
        segments: n.segments,
        items: n.action_items.map((a) => [a.text, a.assignee]),
      }));
    expect(content(later)).toEqual(content(notes));
  });

  it('has at least 20 notes with distinct titles, spread over (but not beyond) the last 60 days', () => {
    expect(notes.length).toBeGreaterThanOrEqual(20);
    expect(new Set(notes.map((n) => n.title)).size).toBe(notes.length);
    const ages = notes.map((n) => (NOW - Date.parse(n.created_at)) / DAY);
    expect(Math.min(...ages)).toBeGreaterThan(0);
    expect(Math.max(...ages)).toBeLessThan(60);
    expect(Math.max(...ages) - Math.min(...ages)).toBeGreaterThan(50);
    // Not bunched up: every 10-day window of the span holds some notes.
    for (let start = 0; start < 60; start += 10) {
      expect(
        ages.some((a) => a >= start && a < start + 10),
        `notes ${start}–${start + 10} days old`,
      ).toBe(true);
    }
  });

  it('gives every note 3–4 named speakers and 8–20 timed turns, all of them speaking', () => {
    for (const note of notes) {
      expect(note.speakers.length).toBeGreaterThanOrEqual(3);
      expect(note.speakers.length).toBeLessThanOrEqual(4);
      expect(note.speakers.map((s) => s.label)).toEqual(note.speakers.map((_, i) => `Speaker ${i + 1}`));
      expect(new Set(note.speakers.map((s) => s.name)).size).toBe(note.speakers.length);
      expect(note.segments.length).toBeGreaterThanOrEqual(8);
      expect(note.segments.length).toBeLessThanOrEqual(20);
      expect(new Set(note.segments.map((s) => s.speaker))).toEqual(
        new Set(note.speakers.map((s) => s.label)),
      );
      let previousEnd = -1;
      for (const s of note.segments) {
        expect(s.start_ms).toBeGreaterThan(previousEnd);
        expect(s.end_ms).toBeGreaterThan(s.start_ms);
        previousEnd = s.end_ms;
      }
      expect(note.duration_seconds * 1000).toBeGreaterThanOrEqual(previousEnd);
      const starts = new Set(note.segments.map((s) => s.start_ms));
      expect(note.highlights.length).toBeGreaterThan(0);
      for (const hl of note.highlights) expect(starts.has(hl.timestamp_ms)).toBe(true);
    }
  });

  it('fills every placeholder of the catalogue', () => {
    const texts = notes.flatMap((n) => [
      n.title,
      n.summary,
      ...n.segments.map((s) => s.text),
      ...n.action_items.map((a) => a.text),
    ]);
    for (const text of texts) expect(text).not.toMatch(/[{}]/);
  });

  it('has action items in both states, with and without assignee and due date, consistent timestamps', () => {
    const items = notes.flatMap((n) => n.action_items.map((a) => ({ ...a, note: n })));
    const completed = items.filter((a) => a.status === 'completed');
    const pending = items.filter((a) => a.status === 'pending');
    expect(completed.length).toBeGreaterThanOrEqual(5);
    expect(pending.length).toBeGreaterThanOrEqual(5);
    expect(items.some((a) => a.assignee && a.due)).toBe(true);
    expect(items.some((a) => a.assignee === null)).toBe(true);
    expect(items.some((a) => a.due === null)).toBe(true);
    for (const a of items) {
      expect(Date.parse(a.created_at)).toBeGreaterThan(Date.parse(a.note.created_at));
      expect(Date.parse(a.created_at)).toBeLessThan(NOW);
      if (a.assignee) expect(a.note.speakers.map((s) => s.name)).toContain(a.assignee);
      if (a.due) expect(isCalendarDate(a.due)).toBe(true);
    }
    for (const a of completed) {
      expect(Date.parse(a.completed_at!)).toBeGreaterThan(Date.parse(a.created_at));
      expect(Date.parse(a.completed_at!)).toBeLessThanOrEqual(NOW);
    }
    for (const a of pending) expect(a.completed_at).toBeNull();
  });

  it('has several tags and says "the budget was exceeded" in some transcript', () => {
    expect(new Set(notes.flatMap((n) => n.tags.map((t) => t.toLowerCase()))).size).toBeGreaterThanOrEqual(5);
    expect(notes.some((n) => renderTranscript(n.segments).includes('the budget was exceeded'))).toBe(true);
  });
});
