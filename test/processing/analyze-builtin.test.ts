import { describe, expect, it } from 'vitest';
import { analyzeTranscript } from '../../src/features/processing/analyze-builtin.ts';
import { MAX_TITLE_LENGTH } from '../../src/features/processing/make-title.ts';
import { MONDAY, PEOPLE, segments } from './analysis-fixtures.ts';

// Pure functions: no database, so these run once rather than per dialect.

function analyze(turns: [string, string][], createdAt = MONDAY) {
  // The rules alone: the learned detector is tested in action-items-combined.test.ts.
  return analyzeTranscript(
    { segments: segments(turns), speakers: PEOPLE, createdAt },
    { actionItems: { detector: null } },
  );
}

/** A planning meeting with a clear theme (the launch budget) and filler around it. */
const PLANNING: [string, string][] = [
  ['Speaker 1', 'Okay, let us get started. Thanks everyone for joining.'],
  ['Speaker 1', 'Today we need to finalize the marketing budget for the product launch in March.'],
  ['Speaker 2', 'The marketing budget is already ten percent over plan because the trade show cost more.'],
  ['Speaker 3', 'Yeah. Right.'],
  ['Speaker 2', 'The trade show booth alone took forty percent of the launch budget this quarter.'],
  ['Speaker 1', 'We could move the launch event online and save most of the event budget.'],
  ['Speaker 3', 'An online launch event would also reach more customers in other regions.'],
  ['Speaker 2', 'Sure. Sounds good to me.'],
  ['Speaker 1', 'The sales team still wants a small launch dinner for the top customers.'],
  ['Speaker 3', 'A launch dinner for twenty customers fits in the remaining marketing budget.'],
  ['Speaker 2', 'Hmm, okay.'],
  ['Speaker 1', 'Then the decision is an online launch event plus one customer dinner within budget.'],
  ['Speaker 2', 'I will update the budget spreadsheet with the new launch numbers.'],
  ['Speaker 3', 'Great, thanks.'],
];

describe('analyzeTranscript: action items', () => {
  it('assigns "I\'ll …" to the speaker and resolves "by Friday" against the recording date', () => {
    const { action_items } = analyze([['Speaker 2', "I'll send the deck to the board by Friday."]]);
    expect(action_items).toEqual([
      { text: 'Send the deck to the board by Friday', assignee: 'Bob Smith', due: '2026-11-27' },
    ]);
  });

  it('understands "I will …" and "tomorrow"', () => {
    const { action_items } = analyze([['Speaker 1', 'I will draft the partner contract tomorrow.']]);
    expect(action_items).toEqual([
      { text: 'Draft the partner contract tomorrow', assignee: 'Alice Chen', due: '2026-11-24' },
    ]);
  });

  it('assigns a request to the person it addresses by name, before or inside the question', () => {
    const { action_items } = analyze([
      ['Speaker 1', 'Maria, can you book the big room by the 15th?'],
      ['Speaker 2', 'Can you, Maria, order the catering for next Tuesday?'],
    ]);
    expect(action_items).toEqual([
      // The 15th of November is past on the 23rd: the next 15th is in December.
      { text: 'Book the big room by the 15th', assignee: 'Maria Lopez', due: '2026-12-15' },
      { text: 'Order the catering for next Tuesday', assignee: 'Maria Lopez', due: '2026-12-01' },
    ]);
  });

  it('keeps an addressee who is not a speaker of the note', () => {
    const { action_items } = analyze([['Speaker 1', 'Priya, could you please review the hiring plan?']]);
    expect(action_items).toEqual([{ text: 'Review the hiring plan', assignee: 'Priya' }]);
  });

  it('assigns an unnamed request to whoever accepts it in the next turn, naming the requester for "me"', () => {
    const { action_items } = analyze([
      ['Speaker 1', 'Can you send me the vendor quotes?'],
      ['Speaker 2', 'Sure, will do.'],
    ]);
    expect(action_items).toEqual([{ text: 'Send Alice Chen the vendor quotes', assignee: 'Bob Smith' }]);
  });

  it('leaves team decisions and "let\'s …" unassigned', () => {
    const { action_items } = analyze([
      ['Speaker 1', 'We need to decide whether the launch stays in Berlin.'],
      ['Speaker 2', "Let's schedule a follow-up with legal next week."],
      ['Speaker 3', 'Action item: update the pricing page before the launch.'],
    ]);
    expect(action_items).toEqual([
      { text: 'Decide whether the launch stays in Berlin' },
      { text: 'Schedule a follow-up with legal next week', due: '2026-11-30' },
      { text: 'Update the pricing page before the launch' },
    ]);
  });

  it('takes the owner from an action item that names a speaker', () => {
    const { action_items } = analyze([
      ['Speaker 1', 'Action item: Bob to renew the SSL certificate by the end of the week.'],
    ]);
    expect(action_items).toEqual([
      { text: 'Renew the SSL certificate by the end of the week', assignee: 'Bob Smith', due: '2026-11-27' },
    ]);
  });

  it('ignores conversation management, questions about the call and past events', () => {
    const { action_items } = analyze([
      ['Speaker 1', "Let's get started."],
      ['Speaker 2', 'Can you hear me?'],
      ['Speaker 3', "I'll be honest, the numbers look bad."],
      ['Speaker 1', 'We met the vendor last Friday.'],
      ['Speaker 2', 'Should we order pizza?'],
    ]);
    expect(action_items).toEqual([]);
  });

  it('lists each commitment once, in transcript order', () => {
    const { action_items } = analyze([
      ['Speaker 2', "I'll send the agenda."],
      ['Speaker 3', "Let's review the roadmap."],
      ['Speaker 2', "Again, I'll send the agenda."],
    ]);
    expect(action_items.map((a) => a.text)).toEqual(['Send the agenda', 'Review the roadmap']);
  });
});

describe('analyzeTranscript: assignments and what is not a task', () => {
  const ROLES = [
    { label: 'Project Manager', name: 'Project Manager' },
    { label: 'Industrial Designer', name: 'Industrial Designer' },
    { label: 'User Interface', name: 'User Interface' },
  ];
  const roles = (turns: [string, string][]) =>
    analyzeTranscript(
      { segments: segments(turns), speakers: ROLES, createdAt: MONDAY },
      { actionItems: { detector: null } },
    ).action_items;

  it('gives "I will ask X to …" to X, found by the words of a role or by its initials', () => {
    expect(
      roles([
        ['Project Manager', 'I will ask the Industrial Designer to find out the cost of the chip.'],
        ['Project Manager', 'And I will ask the U_I_ to draft the button layout.'],
      ]),
    ).toEqual([
      { text: 'Find out the cost of the chip', assignee: 'Industrial Designer' },
      { text: 'Draft the button layout', assignee: 'User Interface' },
    ]);
  });

  it('assigns "Name, you\'re going to …" to the name, and a role named just before to that role', () => {
    expect(
      roles([
        ['Project Manager', "Manuel you're going to work on the components."],
        ['Project Manager', "The I_D_, which is you. Okay, you're going to think about the working design."],
      ]),
    ).toEqual([
      { text: 'Work on the components', assignee: 'Manuel' },
      { text: 'Think about the working design', assignee: 'Industrial Designer' },
    ]);
  });

  it('gives an unnamed assignment to whoever accepts it, past a third person\'s "mm-hmm"', () => {
    expect(
      roles([
        ['Project Manager', 'Are you gonna work on keeping the buttons simple?'],
        ['Industrial Designer', 'Mm-hmm.'],
        ['User Interface', 'Yeah, sure.'],
      ]),
    ).toEqual([{ text: 'Work on keeping the buttons simple', assignee: 'User Interface' }]);
  });

  it('lists several assignments of one turn, an unnamed one to the role the AMI scenario gives its work', () => {
    const items = roles([
      [
        'Project Manager',
        'You have to work on the working design, and you have to work on the user requirements.',
      ],
      ['User Interface', 'Okay.'],
    ]);
    // The first "you" is nobody the turn says: the working design is the Industrial Designer's in the AMI
    // scenario (scenario-roles.ts); the second is whoever answered.
    expect(items).toEqual([
      { text: 'Work on the working design', assignee: 'Industrial Designer' },
      { text: 'Work on the user requirements', assignee: 'User Interface' },
    ]);
  });

  it('understands "you\'ll be sent …", "someone should …" and a plain imperative', () => {
    const { action_items } = analyze([
      ['Speaker 1', "You'll be sent a transcript to check for accuracy."],
      ['Speaker 2', 'Someone should email the venue about the deposit.'],
      ['Speaker 3', 'So check out the supplier website.'],
    ]);
    expect(action_items).toEqual([
      { text: 'Send a transcript to check for accuracy' },
      { text: 'Email the venue about the deposit' },
      { text: 'Check out the supplier website' },
    ]);
  });

  it('ignores design preferences, ratings, meeting flow and the agenda', () => {
    const { action_items } = analyze([
      ['Speaker 1', 'We should have a rubber case and I think we need to incorporate the logo.'],
      ['Speaker 2', "I'll put two. I'll still give it five."],
      ['Speaker 3', "We need to finish up here. Let's take lunch. Let me get my glasses."],
      ['Speaker 1', 'We will then look at the evaluation criteria and I will first present the agenda.'],
      ['Speaker 2', "I'm gonna write some stuff down right now."],
    ]);
    expect(action_items).toEqual([]);
  });

  it('finds the task among several "let\'s" of one sentence', () => {
    const { action_items } = analyze([
      ['Speaker 1', "Let's go with the round one, let's explore the possibility of a two-piece remote."],
    ]);
    expect(action_items).toEqual([{ text: 'Explore the possibility of a two-piece remote' }]);
  });
});

describe('analyzeTranscript: summary', () => {
  const sentencesOf = (summary: string) => summary.split(/(?<=[.!?])\s+/);

  it('extracts 3–6 sentences of the transcript, in transcript order, skipping filler', () => {
    const { summary } = analyze(PLANNING);
    const picked = sentencesOf(summary);
    expect(picked.length).toBeGreaterThanOrEqual(3);
    expect(picked.length).toBeLessThanOrEqual(6);
    const transcript = PLANNING.map(([, text]) => text).join(' ');
    const positions = picked.map((s) => transcript.indexOf(s));
    for (const [i, position] of positions.entries()) {
      expect(position, `"${picked[i]}" is a sentence of the transcript`).toBeGreaterThanOrEqual(0);
    }
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(summary).not.toMatch(/Yeah|Sounds good|Thanks everyone|Hmm/);
    expect(summary).toMatch(/budget/);
  });

  it('uses fewer sentences for a short transcript and never repeats one', () => {
    const { summary } = analyze([
      ['Speaker 1', 'The new office lease starts in January and costs less than the old one.'],
      ['Speaker 2', 'The new office lease starts in January and costs less than the old one.'],
    ]);
    expect(sentencesOf(summary)).toEqual([
      'The new office lease starts in January and costs less than the old one.',
    ]);
  });

  it('drops spoken lead-ins and um/uh so that sentences read well', () => {
    const { summary } = analyze([
      ['Speaker 1', 'So, um, the quarterly revenue grew by twelve percent compared with last year.'],
    ]);
    expect(summary).toBe('The quarterly revenue grew by twelve percent compared with last year.');
  });

  it('still summarises a transcript of short fragments', () => {
    const { summary } = analyze([['Speaker 1', 'Budget approved.']]);
    expect(summary).toBe('Budget approved.');
  });

  it('is deterministic', () => {
    expect(analyze(PLANNING)).toEqual(analyze(PLANNING));
  });
});

describe('analyzeTranscript: title', () => {
  it('is the key phrase of the most salient statement, without its framing', () => {
    const { title } = analyze(PLANNING);
    expect(title).toMatch(/budget|launch/i);
    expect(title).not.toMatch(/^(?:we need to|today|okay|so)\b/i);
    expect(title.length).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
    expect(title[0]).toBe(title[0]!.toUpperCase());
  });

  it('stays within 80 characters for a single very long sentence', () => {
    const long = `The ${'extraordinarily comprehensive '.repeat(12)}migration plan covers every regional datacenter.`;
    const { title } = analyze([['Speaker 1', long]]);
    expect(title.length).toBeGreaterThan(0);
    expect(title.length).toBeLessThanOrEqual(MAX_TITLE_LENGTH);
  });

  it('is never empty nor "Untitled", even for greetings only', () => {
    for (const turns of [
      [['Speaker 1', 'Hi.']],
      [
        ['Speaker 1', 'Hi.'],
        ['Speaker 2', 'Hello!'],
      ],
    ] as [string, string][][]) {
      const { title } = analyze(turns);
      expect(title.trim().length).toBeGreaterThan(0);
      expect(title).not.toMatch(/untitled/i);
    }
  });
});

describe('analyzeTranscript: highlights', () => {
  it('takes a short sentence labelled "Important:" as the highlight itself, not the one before it', () => {
    const { highlights } = analyze([
      ['Speaker 1', 'Welcome, this is the launch sync.'],
      ['Speaker 2', "I'll send the revised budget to finance by Friday."],
      ['Speaker 1', 'Important: the launch moves online.'],
    ]);
    expect(highlights).toContainEqual({ timestamp_ms: 20_000, text: 'Important: the launch moves online.' });
  });

  it('highlights marked sentences at the start of their turn', () => {
    const { highlights } = analyze([
      ['Speaker 1', 'Welcome back everyone to the weekly sync.'],
      ['Speaker 2', 'Key point: the database migration moves to the second week of March.'],
      ['Speaker 3', 'The support team reported fewer tickets this week than last week.'],
    ]);
    expect(highlights).toContainEqual({
      timestamp_ms: 10_000,
      text: 'Key point: the database migration moves to the second week of March.',
    });
  });

  it('highlights what was said just before a short "bookmark that"', () => {
    const { highlights } = analyze([
      ['Speaker 1', 'Churn dropped to two percent after the onboarding redesign shipped.'],
      ['Speaker 2', 'Wow. Bookmark that.'],
    ]);
    expect(highlights).toContainEqual({
      timestamp_ms: 0,
      text: 'Churn dropped to two percent after the onboarding redesign shipped.',
    });
    expect(highlights.map((h) => h.text)).not.toContain('Bookmark that.');
  });

  it('adds 1–3 salient statements, in transcript order, with timestamps of their turns', () => {
    const { highlights } = analyze(PLANNING);
    expect(highlights.length).toBeGreaterThanOrEqual(1);
    expect(highlights.length).toBeLessThanOrEqual(3);
    const starts = segments(PLANNING).map((s) => s.start_ms);
    for (const h of highlights) {
      const turn = starts.indexOf(h.timestamp_ms);
      expect(turn).toBeGreaterThanOrEqual(0);
      expect(PLANNING[turn]![1]).toContain(h.text.replace(/\.$/, ''));
    }
    const timestamps = highlights.map((h) => h.timestamp_ms);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
  });
});
