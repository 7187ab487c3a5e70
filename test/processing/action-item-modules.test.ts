import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  nameIn,
  partner,
  personalName,
  resolveAddressee,
  responder,
  topicBefore,
} from '../../src/features/processing/action-items/addressee.ts';
import { detectedTask } from '../../src/features/processing/action-items/detected-task.ts';
import {
  IN_MEETING,
  LATER,
  LISTENING_SOUND_UNIT,
  madeOf,
  NEEDS_COMPLEMENT,
  SHORT_REPLY_UNIT,
  TASK_VERBS,
  WORK_NOUN,
} from '../../src/features/processing/action-items/lexicon.ts';
import { matchClause, RULES, type Rule } from '../../src/features/processing/action-items/rules.ts';
import { scenarioOwner } from '../../src/features/processing/action-items/scenario-roles.ts';
import {
  endsWithWork,
  isTask,
  toMatch,
  verbOf,
  withoutQuotes,
} from '../../src/features/processing/action-items/task-text.ts';
import { createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import { extractActionItems } from '../../src/features/processing/extract-action-items.ts';
import { splitSentences } from '../../src/features/processing/sentences.ts';
import { MONDAY, PEOPLE, segments } from './analysis-fixtures.ts';

const people = createSpeakerDirectory(PEOPLE);
const roles = createSpeakerDirectory(
  ['Project Manager', 'Industrial Designer', 'User Interface', 'Marketing'].map((r) => ({
    label: r,
    name: r,
  })),
);
const sentencesOf = (turns: [string, string][]) => splitSentences(segments(turns));

describe('action items: lexicon', () => {
  it('madeOf decides as the backtracking patterns it replaces did, in one pass', () => {
    // The patterns the rules and the shipped detector weights were written with: exponential on a long run that
    // ends in something else, so only short texts here.
    const OLD_SHORT_REPLY =
      /^(?:\W*(?:mm+-?hmm+|uh-huh|hmm+|mm+|um+|uh+|oh|ah|right|okay|ok|yeah|yes|yep|sure|alright|i see|'kay)\W*)+$/i;
    // The detector's, applied to lower-cased text.
    const OLD_LISTENING = /^(?:\W*(?:mm+-?hmm+|mm+|hmm+|uh-huh|um+|uh+|oh|ah)\W*)+$/;
    const piece = fc.constantFrom(
      ...[
        'm',
        'mm',
        'M',
        'h',
        'hmm',
        'u',
        'uh',
        'uh-huh',
        'o',
        'oh',
        'a',
        'ah',
        'ok',
        'okay',
        'ay',
        "'kay",
        'kay',
      ],
      ...[
        'yeah',
        'yes',
        'ye',
        'i see',
        'i',
        'see',
        'right',
        'sure',
        'alright',
        '-',
        ' ',
        '.',
        "'",
        'x',
        'é',
        '_',
        '1',
      ],
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        expect(madeOf(SHORT_REPLY_UNIT, text)).toBe(OLD_SHORT_REPLY.test(text));
        expect(madeOf(LISTENING_SOUND_UNIT, text.toLowerCase())).toBe(OLD_LISTENING.test(text.toLowerCase()));
      }),
      { numRuns: 10_000 },
    );
    for (const reply of ['Mm-hmm.', 'uh-huh', 'mmhmm', 'Hmm, mm', 'oh', '... uhh ...', 'umm'])
      expect(madeOf(LISTENING_SOUND_UNIT, reply)).toBe(true);
    for (const reply of ['', '...', 'mm-hmm, sure', 'uhh-huh', 'hm', 'm', 'ohh', 'yeah'])
      expect(madeOf(LISTENING_SOUND_UNIT, reply)).toBe(false);
    expect(madeOf(SHORT_REPLY_UNIT, "Okay. Yeah, I see. 'Kay.")).toBe(true);
    expect(madeOf(SHORT_REPLY_UNIT, 'Okay, I agree.')).toBe(false);
    // The replies that held the old patterns for hours.
    const run = 'Mm-hmm, '.repeat(50_000);
    expect(madeOf(SHORT_REPLY_UNIT, `${run}I agree.`)).toBe(false);
    expect(madeOf(LISTENING_SOUND_UNIT, `${run}x`)).toBe(false);
    expect(madeOf(LISTENING_SOUND_UNIT, run)).toBe(true);
  });

  it('knows which verbs are work and which need their complement', () => {
    expect(TASK_VERBS.has('send')).toBe(true);
    expect(TASK_VERBS.has('like')).toBe(false);
    expect(NEEDS_COMPLEMENT.work!.test('work on the design')).toBe(true);
    expect(NEEDS_COMPLEMENT.work!.test('work hard')).toBe(false);
    expect(WORK_NOUN.test('the technical functions design')).toBe(true);
  });

  it('tells meeting talk and later work apart', () => {
    expect(IN_MEETING.test('share my screen')).toBe(true);
    expect(IN_MEETING.test('send the deck')).toBe(false);
    expect(LATER.test('before the next meeting')).toBe(true);
  });
});

describe('action items: task normalisation', () => {
  it('drops fillers, spoken tags and reasons, and capitalises', () => {
    expect(toMatch('just, um, send the deck by Friday, okay?', 'Alice Chen')).toEqual({
      text: 'Send the deck by Friday',
      assignee: 'Alice Chen',
    });
    expect(toMatch('also, for sure, email Hynek because he asked', undefined)).toEqual({
      text: 'Email Hynek',
    });
    expect(toMatch('be doing the working design', undefined)?.text).toBe('Do the working design');
  });

  it('keeps a task the speaker trails off after with a conjunction', () => {
    expect(
      toMatch('just make a first draft of the note, send it to you and Fey and then', undefined)?.text,
    ).toBe('Make a first draft of the note, send it to you and Fey');
    expect(toMatch('come back to these points at our next meeting but', undefined)?.text).toBe(
      'Come back to these points at our next meeting',
    );
    // Broken off before the object is still no task, conjunction or not.
    expect(toMatch('put the notes on the, and', undefined)).toBeUndefined();
    expect(toMatch('send the and', undefined)).toBeUndefined();
  });

  it('refuses what is no task: no task verb, a pronoun only, speech broken off, meeting talk', () => {
    expect(toMatch('have a rubber case', undefined)).toBeUndefined();
    expect(toMatch('do it', undefined)).toBeUndefined();
    expect(toMatch('put the notes on the', undefined)).toBeUndefined();
    expect(toMatch('finish here', undefined)).toBeUndefined();
    // Any verb when the caller already knows it is a task.
    expect(toMatch('have a rubber case made', undefined, { allowAnyVerb: true })?.text).toBe(
      'Have a rubber case made',
    );
  });

  it('names the requester for "me" and reads verbs, work nouns and quotes', () => {
    expect(toMatch('send me the slides', 'Bob Smith', { requester: 'Alice Chen' })?.text).toBe(
      'Send Alice Chen the slides',
    );
    expect(isTask('look into the costs')).toBe(true);
    expect(isTask('look good')).toBe(false);
    expect(verbOf('Work on the design')).toBe('work on');
    expect(endsWithWork('the user interface design')).toBe(true);
    expect(withoutQuotes('he said "I can bring it" and left', false)).toEqual({
      text: 'he said and left',
      open: false,
    });
  });
});

describe('action items: addressee resolution', () => {
  it('resolves names, role words, stammered roles and initials to display names', () => {
    expect(resolveAddressee('Maria', people)).toBe('Maria Lopez');
    expect(resolveAddressee('the Industrial Designer', roles)).toBe('Industrial Designer');
    expect(resolveAddressee('User Interf Interface', roles)).toBe('User Interface');
    expect(resolveAddressee('the PM', roles)).toBe('Project Manager');
    expect(resolveAddressee('I_D_', roles)).toBe('Industrial Designer');
    expect(resolveAddressee('Canada', people)).toBeUndefined();
  });

  it('reads names out of openers', () => {
    expect(nameIn('Okay Maria')).toBe('Maria');
    expect(nameIn('So')).toBeUndefined();
    expect(personalName('Courtney')).toBe('Courtney');
    expect(personalName('Trying')).toBeUndefined();
  });

  it('finds who answers a request, whom the speaker talks with, and a person named before', () => {
    const all = sentencesOf([
      ['Speaker 3', 'The figures are nearly done.'],
      ['Speaker 1', 'Can you send the figures?'],
      ['Speaker 3', 'Sure, will do.'],
      ['Speaker 1', 'So, for Bob, you are going to draft the plan.'],
    ]);
    expect(responder(all[1]!, all, people)).toBe('Maria Lopez');
    expect(partner(all[1]!, all, people)).toBe('Maria Lopez');
    expect(topicBefore('So, for Bob, ', all[3]!, all, people)).toBe('Bob Smith');
  });
});

describe('action items: the rule table', () => {
  it('has uniquely named rules, each with a pattern', () => {
    const names = RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of RULES) expect(rule.pattern).toBeDefined();
  });

  it('starts a name at a word or after a short particle, never inside a word', () => {
    const owner = (text: string) =>
      extractActionItems(
        sentencesOf([['Speaker 1', text]]),
        createSpeakerDirectory([{ label: 'Speaker 1', name: 'Maria Lopez' }]),
        MONDAY,
        { detector: null },
      ).map((item) => item.assignee);
    expect(owner("al-Rashid's job is to book the room.")).toEqual(['Rashid']);
    expect(owner("d'Artagnan's action item is to send the budget.")).toEqual(['Artagnan']);
    // A capital that `\b` (ASCII-only) did not see as a word's start.
    expect(owner("Émile's job is to book the room.")).toEqual(['Émile']);
    // Not at a capital inside a word: "xB" is no name.
    expect(owner("x-xB's job is to book the room.")).toEqual([]);
  });

  it('decides a clause by the first rule that answers, and tags its items with the rule', () => {
    const all = sentencesOf([['Speaker 1', "I'll send the deck."]]);
    const context = {
      text: all[0]!.text,
      sentence: all[0]!,
      all,
      speakers: people,
      speaker: 'Alice Chen',
      where: { last: true, question: false },
    };
    expect(matchClause(context)).toEqual([
      { text: 'Send the deck', assignee: 'Alice Chen', rule: 'promise' },
    ]);
    // A rule placed first wins; one that returns [] ends the clause with nothing.
    const stop: Rule = { name: 'stop', pattern: /deck/, build: () => [] };
    expect(matchClause(context, [stop, ...RULES])).toEqual([]);
    const pass: Rule = { name: 'pass', pattern: /deck/, build: () => undefined };
    expect(matchClause(context, [pass, ...RULES])[0]?.rule).toBe('promise');
  });

  it('keeps every pattern linear on long adversarial clauses', () => {
    const hostile = [
      `${'I_D_ '.repeat(3000)}x`,
      `${'Aaaaa'.repeat(2000)} will`,
      `${"I'll ".repeat(3000)}`,
      `${'the '.repeat(3000)}for Bob`,
      `${', '.repeat(3000)}you`,
    ];
    for (const text of hostile) {
      const all = sentencesOf([['Speaker 1', text]]);
      for (const rule of RULES) {
        for (const pattern of Array.isArray(rule.pattern) ? rule.pattern : [rule.pattern as RegExp]) {
          const started = performance.now();
          if (pattern.global) [...text.matchAll(pattern)].slice(0, 1);
          else pattern.exec(text);
          // Generous: a backtracking pattern takes seconds to hours here, a linear one well under a second.
          expect(performance.now() - started, `${rule.name} on ${text.slice(0, 20)}…`).toBeLessThan(2_000);
        }
      }
      expect(all.length).toBeGreaterThan(0);
    }
  });
});

describe('action items: wording what the detector found', () => {
  it('words a promise the rules miss, for the speaker; a "you" for the person named; a "we" for no one', () => {
    const all = sentencesOf([
      ['Speaker 1', "I'm gonna put these initial ideas in the project documents."],
      ['Speaker 2', 'Maria, you will have to work more on the spongy touch of the buttons.'],
      ['Speaker 3', "We're gonna start recording them next week."],
      ['Speaker 1', 'What a lovely day.'],
    ]);
    expect(detectedTask(all[0]!, all, people)).toMatchObject({
      text: 'Put these initial ideas in the project documents',
      assignee: 'Alice Chen',
    });
    expect(detectedTask(all[1]!, all, people)).toMatchObject({
      text: 'Work more on the spongy touch of the buttons',
      assignee: 'Maria Lopez',
    });
    expect(detectedTask(all[2]!, all, people)).toEqual({ text: 'Start recording them next week' });
    expect(detectedTask(all[3]!, all, people)).toBeUndefined();
  });
});

describe("action items: owners of the AMI scenario's work", () => {
  it('gives the work only the scenario assigns to the one participant with that role, not the speaker', () => {
    const pm = 'Project Manager';
    expect(scenarioOwner('Work on the working design', roles, pm)).toBe('Industrial Designer');
    expect(scenarioOwner('Do the components concept', roles, pm)).toBe('Industrial Designer');
    expect(scenarioOwner('Work on the technical functions', roles, pm)).toBe('User Interface');
    expect(scenarioOwner('Work on user interface', roles, pm)).toBe('User Interface');
    expect(scenarioOwner('Keep watching the trends', roles, pm)).toBe('Marketing');
    expect(scenarioOwner('Do the trend-watching', roles, pm)).toBe('Marketing');
    // Two roles' work, shared work, the speaker's own, other work, a meeting without these roles: nobody.
    expect(scenarioOwner('Do the look and feel and the user interface design', roles, pm)).toBeUndefined();
    expect(scenarioOwner('Work together on the look and feel design', roles, pm)).toBeUndefined();
    expect(scenarioOwner('Do the trend watching', roles, 'Marketing')).toBeUndefined();
    expect(scenarioOwner('Send the minutes', roles, pm)).toBeUndefined();
    expect(scenarioOwner('Work on the working design', people, 'Alice Chen')).toBeUndefined();
  });

  it('assigns an unnamed "you" in a round of work, and leaves a named one alone', () => {
    const all = sentencesOf([
      ['Project Manager', 'So you have to work on the working design.'],
      ['Industrial Designer', 'Okay.'],
      ['Project Manager', 'And you have to work on the technical functions.'],
      ['Marketing', 'Mm-hmm.'],
      ['Project Manager', 'Marketing, you will do the user interface design.'],
    ]);
    expect(extractActionItems(all, roles, MONDAY, { detector: null })).toEqual([
      { text: 'Work on the working design', assignee: 'Industrial Designer' },
      { text: 'Work on the technical functions', assignee: 'User Interface' },
      { text: 'Do the user interface design', assignee: 'Marketing' },
    ]);
  });
});
