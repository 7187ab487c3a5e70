/**
 * One consistent story for the document's examples: the note of a planning meeting, its recording, action item,
 * highlight and webhook. Ids have the API's form (prefix + 24 base62 characters).
 */
export const EXAMPLE = {
  noteId: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W',
  recordingId: 'rec_5Tq8Lm2Zx9Kb4Vn7Yc1Rp3Wd',
  actionItemId: 'ai_7Kp2Qm9Xv4Lb8Zt1Yc3Rn6Wd',
  secondActionItemId: 'ai_2Wd6Rn3Yc1Zt8Lb4Xv9Qm7Kp',
  highlightId: 'hl_8Qm2ZtY4pLk9Rb1Xc7Vn3WsA',
  webhookId: 'wh_5Tq8LmZ2xK7bN4cV9pR1sW3y',
  deliveryId: 'dlv_2Hk9sQ4mZx7Lb1Nc8Vt3Rw6P',
  eventId: 'evt_7Yb3Kq9ZmL2xT5cN8vR4pW1s',
  requestId: 'req_4Jb2kX9qL0aZt7Yw3mNc8RfP',
  /** When the meeting was recorded: the note's and the recording's `created_at`. */
  recordedAt: '2026-11-20T14:00:00.000Z',
  /** When processing finished: the action items' `created_at`. */
  processedAt: '2026-11-20T14:31:07.412Z',
} as const;
