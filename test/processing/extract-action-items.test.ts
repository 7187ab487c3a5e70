import { describe, expect, it } from 'vitest';
import { analyzeTranscript } from '../../src/features/processing/analyze-builtin.ts';
import { cleanText, splitText } from '../../src/features/processing/sentences.ts';
import { MONDAY, PEOPLE, segments } from './analysis-fixtures.ts';

// Pure functions: no database, so these run once rather than per dialect. These test the rules (wording,
// assignee, due date) without the learned detector, which is tested in action-items-combined.test.ts.
const RULES_ONLY = { actionItems: { detector: null } };

const ROLES = [
  { label: 'Project Manager', name: 'Project Manager' },
  { label: 'Industrial Designer', name: 'Industrial Designer' },
  { label: 'User Interface', name: 'User Interface' },
  { label: 'Marketing', name: 'Marketing' },
];

const people = (turns: [string, string][]) =>
  analyzeTranscript({ segments: segments(turns), speakers: PEOPLE, createdAt: MONDAY }, RULES_ONLY)
    .action_items;
const roles = (turns: [string, string][]) =>
  analyzeTranscript({ segments: segments(turns), speakers: ROLES, createdAt: MONDAY }, RULES_ONLY)
    .action_items;

describe('action items: commitments', () => {
  it('reads "I\'ll be doing …", "I\'d be happy to …", "I\'ll have … ready" and "I\'ll take care of …"', () => {
    expect(
      people([
        ['Speaker 1', 'I will be sending out the invites tomorrow.'],
        ['Speaker 2', "I'd be happy to write the summary."],
        ['Speaker 3', "I'll have the report ready by Friday."],
        ['Speaker 1', "I'll take care of the booking."],
      ]),
    ).toEqual([
      { text: 'Send out the invites tomorrow', assignee: 'Alice Chen', due: '2026-11-24' },
      { text: 'Write the summary', assignee: 'Bob Smith' },
      { text: 'Have the report ready by Friday', assignee: 'Maria Lopez', due: '2026-11-27' },
      { text: 'Take care of the booking', assignee: 'Alice Chen' },
    ]);
  });

  it('takes "let me … and get back to you" as a promise, other "let me" as the meeting', () => {
    expect(
      people([
        ['Speaker 1', 'Let me check with legal and get back to you.'],
        ['Speaker 2', 'Let me get my glasses. Let me check the next slide.'],
      ]),
    ).toEqual([{ text: 'Check with legal and get back to you', assignee: 'Alice Chen' }]);
  });

  it('ignores "I can" inside a relative clause and tasks that only point back ("do it")', () => {
    expect(
      people([
        ['Speaker 1', 'These are highlights that I can tell some outside person about.'],
        ['Speaker 2', "I'll do it. We have to evaluate one of them."],
      ]),
    ).toEqual([]);
  });
});

describe('action items: promises to try', () => {
  it('reads "I\'ll see if I can …" as a promise, a relative "if I can" still not', () => {
    expect(
      people([
        ['Speaker 1', "I'll see if I can get hold of the legal department for the next meeting."],
        ['Speaker 2', 'Let me see whether I can book the room.'],
      ]),
    ).toEqual([
      { text: 'Get hold of the legal department for the next meeting', assignee: 'Alice Chen' },
      { text: 'Book the room', assignee: 'Bob Smith' },
    ]);
    expect(people([['Speaker 1', 'We never know if I can book the room in time.']])).toEqual([]);
  });
});

describe('action items: joint promises and polite requests', () => {
  it('gives a promise made with a partner ("Pedro and I can …") no one owner, also after a false start', () => {
    expect(
      people([
        [
          'Speaker 1',
          'I can look into ho well Pedro and I can look into how much this might increase our costs.',
        ],
        ['Speaker 2', 'Okay and I will send the deck.'],
      ]),
    ).toEqual([
      { text: 'Look into how much this might increase our costs' },
      { text: 'Send the deck', assignee: 'Bob Smith' },
    ]);
  });

  it('reads "Norman and I would …" as an offer of two people, not a wish', () => {
    expect(
      people([['Speaker 1', 'Well I think that Norman and I would think about the technical points, or']]),
    ).toEqual([{ text: 'Think about the technical points' }]);
    expect(
      people([['Speaker 1', 'Norman and I would like that. So and I would think about the points.']]),
    ).toEqual([]);
  });

  it('reads "it\'s up to you to …" as a request', () => {
    expect(
      people([
        ['Speaker 1', "It's up to you to send the invoice."],
        ['Speaker 2', 'Sure.'],
      ]),
    ).toEqual([{ text: 'Send the invoice', assignee: 'Bob Smith' }]);
    expect(people([['Speaker 1', "It's up to you to be honest."]])).toEqual([]);
  });

  it('reads "if you could …" opening a clause as a request, not a condition', () => {
    expect(
      people([
        ['Speaker 1', 'So if you could draft the budget for the offsite.'],
        ['Speaker 2', 'Sure, will do.'],
      ]),
    ).toEqual([{ text: 'Draft the budget for the offsite', assignee: 'Bob Smith' }]);
    expect(people([['Speaker 1', 'It works better when if you could draft the budget it is done.']])).toEqual(
      [],
    );
  });
});

describe('action items: what "that" is', () => {
  it('says which question "I\'ll get back to you on that" answers', () => {
    expect(
      people([
        ['Speaker 2', 'Is it just a television remote?'],
        ['Speaker 3', 'Mm.'],
        ['Speaker 1', "I'll get back to you on that."],
        ['Speaker 2', 'Who else should contribute to the plan?'],
        ['Speaker 3', "Okay, I'll get back to you on that."],
      ]),
    ).toEqual([
      { text: 'Get back to you on whether is it just a television remote', assignee: 'Alice Chen' },
      { text: 'Get back to you on who else should contribute to the plan', assignee: 'Maria Lopez' },
    ]);
  });

  it('leaves "get back to you on that" as said when no question was asked just before', () => {
    expect(
      people([
        ['Speaker 2', 'Can we afford it?'],
        ['Speaker 3', 'The costs are high.'],
        ['Speaker 2', 'We have the numbers.'],
        ['Speaker 3', 'They are in the report.'],
        ['Speaker 2', 'And the budget is set.'],
        ['Speaker 3', 'Right.'],
        ['Speaker 1', "I'll get back to you on that."],
      ]),
    ).toEqual([{ text: 'Get back to you on that', assignee: 'Alice Chen' }]);
  });
});

describe('action items: work handed out in the present tense', () => {
  it('reads "so you do …" opening a clause as an assignment when work follows', () => {
    expect(
      people([
        ['Speaker 1', 'So you do the looking around at other vendors.'],
        ['Speaker 2', 'Sure.'],
      ]),
    ).toEqual([{ text: 'Do the looking around at other vendors', assignee: 'Bob Smith' }]);
  });

  it('lets the clause go on when no work follows "you"', () => {
    expect(
      people([
        ['Speaker 1', 'And, you know, they should also email Hynek. So you look tired.'],
        ['Speaker 2', 'Yeah.'],
      ]),
    ).toEqual([{ text: 'Email Hynek' }]);
  });
});

describe('action items: a round of AMI work read as one list', () => {
  it('splits a list of work that belongs to different AMI roles, one item per owner', () => {
    expect(
      roles([
        [
          'Industrial Designer',
          "So I'm supposed to do the components concept, supposed to work on the user interface concept.",
        ],
      ]),
    ).toEqual([
      { text: 'Do the components concept', assignee: 'Industrial Designer' },
      { text: 'Work on the user interface concept', assignee: 'User Interface' },
    ]);
  });

  it('reads "you each have things to do: …" as work handed out, split by owner', () => {
    expect(
      roles([
        [
          'Project Manager',
          'So you each have things to do, look and feel design, user interface design, product evaluation.',
        ],
      ]),
    ).toEqual([
      { text: 'Do the look and feel design', assignee: 'Industrial Designer' },
      { text: 'Do the user interface design', assignee: 'User Interface' },
      { text: 'Do the product evaluation', assignee: 'Marketing' },
    ]);
    expect(people([['Speaker 1', 'Everybody has things to do, the budget report.']])).toEqual([
      { text: 'Do the budget report' },
    ]);
    // Talk about having work is no list of it.
    expect(people([['Speaker 1', 'Everybody has work to do these days, honestly.']])).toEqual([]);
  });

  it("keeps a list of one role's work, or of no role's, as one item", () => {
    expect(
      roles([['Industrial Designer', "I'll do the components concept, and the working design."]]),
    ).toEqual([
      { text: 'Do the components concept, and the working design', assignee: 'Industrial Designer' },
    ]);
    expect(people([['Speaker 1', "I'll do the components concept, the user interface concept."]])).toEqual([
      { text: 'Do the components concept, the user interface concept', assignee: 'Alice Chen' },
    ]);
  });
});

describe('action items: duties and suggestions', () => {
  it('reads "you\'re supposed to …" and "I\'m supposed to …" as work handed out, "keep …ing" as work', () => {
    expect(
      roles([
        ['Project Manager', "I'm supposed to write the minutes."],
        ['Industrial Designer', "And you're supposed to keep watching the trends."],
      ]),
    ).toEqual([
      { text: 'Write the minutes', assignee: 'Project Manager' },
      { text: 'Keep watching the trends', assignee: 'Marketing' },
    ]);
    // A duty with no work ("keep it simple", "be there") is no task.
    expect(
      roles([['Project Manager', "You're supposed to keep it simple. I'm supposed to be there."]]),
    ).toEqual([]);
  });

  it('reads "why don\'t you …?" as a request to the one who answers, not any "why don\'t you"', () => {
    expect(
      people([
        ['Speaker 1', "Why don't you also copy Jane on the note?"],
        ['Speaker 2', 'Sure.'],
      ]),
    ).toEqual([{ text: 'Copy Jane on the note', assignee: 'Bob Smith' }]);
    expect(
      people([
        ['Speaker 1', "Why don't you like the design? Why don't you copy it?"],
        ['Speaker 2', 'It is too big.'],
      ]),
    ).toEqual([]);
  });
});

describe('action items: requests and assignments', () => {
  it('reads "I\'d like you to …", "make sure you …", "don\'t forget to …" and "I want Maria to …"', () => {
    expect(
      people([
        ['Speaker 1', "I'd like you to review the pull request."],
        ['Speaker 2', 'Sure.'],
        ['Speaker 1', 'Make sure you update the ticket.'],
        ['Speaker 3', 'Will do.'],
        ['Speaker 1', "Don't forget to submit your expenses."],
        ['Speaker 1', 'I want Maria to draft the press release.'],
      ]),
    ).toEqual([
      { text: 'Review the pull request', assignee: 'Bob Smith' },
      { text: 'Update the ticket', assignee: 'Maria Lopez' },
      { text: 'Submit your expenses' },
      { text: 'Draft the press release', assignee: 'Maria Lopez' },
    ]);
  });

  it('gives "who\'s going to …?" to whoever volunteers, and to no one when nobody does', () => {
    expect(
      people([
        ['Speaker 1', "Who's going to book the room?"],
        ['Speaker 3', 'I can do that.'],
        ['Speaker 1', 'Can somebody email the venue?'],
        ['Speaker 2', 'Yes, the venue is nice.'],
      ]),
    ).toEqual([{ text: 'Book the room', assignee: 'Maria Lopez' }, { text: 'Email the venue' }]);
  });

  it('leaves a request unassigned when two people take it on', () => {
    expect(
      people([
        ['Speaker 1', 'Are you gonna save the data before the next group comes in?'],
        ['Speaker 2', 'Yeah.'],
        ['Speaker 3', 'Yeah, absolutely.'],
      ]),
    ).toEqual([{ text: 'Save the data before the next group comes in' }]);
  });

  it('reads the owner of "action item for Bob: …" and "Maria\'s action item is to …"', () => {
    expect(
      people([
        ['Speaker 1', 'Action item for Bob: renew the domain.'],
        ['Speaker 1', "Maria's action item is to call the printer."],
      ]),
    ).toEqual([
      { text: 'Renew the domain', assignee: 'Bob Smith' },
      { text: 'Call the printer', assignee: 'Maria Lopez' },
    ]);
  });

  it('reads "X takes care of …", "X is responsible for …", "… is for X" and "X gets the …"', () => {
    expect(
      people([
        ['Speaker 1', 'Maria takes care of the catering.'],
        ['Speaker 1', 'Bob is responsible for the press release.'],
        ['Speaker 1', 'The quarterly report is for Maria.'],
        ['Speaker 1', 'Steph gets the user interface design.'],
      ]),
    ).toEqual([
      { text: 'Take care of the catering', assignee: 'Maria Lopez' },
      { text: 'The press release', assignee: 'Bob Smith' },
      { text: 'The quarterly report', assignee: 'Maria Lopez' },
      { text: 'The user interface design', assignee: 'Steph' },
    ]);
  });

  it('does not take "is for", "gets" or "is on" about other things as assignments', () => {
    expect(
      people([
        ['Speaker 1', 'The design is for children. Bob gets the blame for that.'],
        ['Speaker 2', 'Maria is on holiday next week. The report is for the board.'],
        ['Speaker 3', 'And Bob, the budget numbers look off.'],
      ]),
    ).toEqual([]);
  });

  it('gives two named people\'s task, and "you two …", to no one', () => {
    expect(
      people([
        ['Speaker 1', 'Bob and Maria are going to draft the proposal together.'],
        ['Speaker 1', 'Could you two set up a meeting with the client?'],
        ['Speaker 2', 'Sure.'],
        ['Speaker 3', 'I mean, Adam and Don will sort of meet.'],
      ]),
    ).toEqual([
      { text: 'Draft the proposal together' },
      { text: 'Set up a meeting with the client' },
      { text: 'Adam and Don meet' },
    ]);
  });

  it('reads "someone to …", "figure out", "circle back" and a later "get … done"', () => {
    expect(
      people([
        ['Speaker 1', 'We need someone to update the wiki.'],
        ['Speaker 2', 'We still need to figure out the pricing.'],
        ['Speaker 3', 'Bob, can you get the contract signed by Monday?'],
        ['Speaker 1', "Let's circle back on pricing next week."],
      ]),
    ).toEqual([
      { text: 'Update the wiki' },
      { text: 'Figure out the pricing' },
      { text: 'Get the contract signed by Monday', assignee: 'Bob Smith', due: '2026-11-30' },
      { text: 'Circle back on pricing next week', due: '2026-11-30' },
    ]);
  });

  it('takes "whenever anybody …, they should also, for sure, email …" past commas', () => {
    expect(
      people([['Speaker 1', 'Whenever anybody figures it out they should also, for sure, email Hynek.']]),
    ).toEqual([{ text: 'Email Hynek' }]);
  });

  it('does not take a general "you can" (after "when", "if you need it", "you can\'t") as a task', () => {
    expect(
      people([
        ['Speaker 1', 'When it breaks, you can replace the battery yourself.'],
        ['Speaker 2', 'You can find the file on the drive if you need it.'],
        ['Speaker 3', "You can't do that, you can select the file and export it."],
        ['Speaker 1', 'Yeah.'],
      ]),
    ).toEqual([]);
  });

  it('ignores sharing a screen and things said in the chat', () => {
    expect(people([['Speaker 1', "I'll share my screen. I'll post the link in the chat."]])).toEqual([]);
  });
});

describe('action items: the assignments that close a meeting', () => {
  it('reads "X will be doing …" and "the marketing manager is coming up with …", roles in lower case too', () => {
    expect(
      roles([
        ['Project Manager', 'The industrial design, Alima will be doing the working design.'],
        [
          'Project Manager',
          'And the marketing manager is coming up with the user requirement specification.',
        ],
        ['Project Manager', 'And then marketing will look and see what people want.'],
      ]),
    ).toEqual([
      { text: 'Do the working design', assignee: 'Alima' },
      { text: 'Come up with the user requirement specification', assignee: 'Marketing' },
      { text: 'Look and see what people want', assignee: 'Marketing' },
    ]);
  });

  it('splits a list that says its verb once: "the I_D_ is going to do X, the U_I_D_ Y"', () => {
    expect(
      roles([
        [
          'Project Manager',
          'The I_D_ is going to do the look and feel design, the U_I_D_ the user interface design.',
        ],
      ]),
    ).toEqual([
      { text: 'Do the look and feel design', assignee: 'Industrial Designer' },
      { text: 'Do the user interface design', assignee: 'User Interface' },
    ]);
  });

  it('reads a role and the work without a verb: "And U_I_D_, the technical functions design"', () => {
    expect(roles([['Project Manager', 'And U_I_D_, the technical functions design.']])).toEqual([
      { text: 'The technical functions design', assignee: 'User Interface' },
    ]);
  });

  it('gives "you are going to …" to the role named before it, in the sentence or the previous turn', () => {
    expect(
      roles([
        ['Project Manager', 'For the User Interface Designer, which is Hamed,'],
        ['User Interface', 'Mm-hmm.'],
        ['Project Manager', 'you are going to work on the technical functions.'],
        [
          'Project Manager',
          'And for the Marketing Manager, which is Bob, you are going to find the user requirements.',
        ],
      ]),
    ).toEqual([
      { text: 'Work on the technical functions', assignee: 'User Interface' },
      { text: 'Find the user requirements', assignee: 'Marketing' },
    ]);
  });

  it('gives "the X and the Y are going to …" to no one', () => {
    expect(
      roles([
        [
          'Project Manager',
          'Notice that the Industrial Designer and the User Interface Designer are going to work together on a prototype.',
        ],
      ]),
    ).toEqual([{ text: 'Work together on a prototype' }]);
  });

  it('does not take a design statement about a role-named part, or a capitalised "Trying", as an owner', () => {
    expect(
      roles([
        [
          'Marketing',
          'The user interface will be simple. Trying to make sure that direction came from the FCO.',
        ],
        ['Industrial Designer', 'I can bring the sheet up and show you if you wish.'],
      ]),
    ).toEqual([]);
  });
});

describe('action items: what is said but not committed to', () => {
  it('ignores commitments inside reported speech, also across sentences of a turn', () => {
    expect(
      people([
        [
          'Speaker 1',
          'My friend is like " Oh, well, I can bring over the console if you want. " It was fun.',
        ],
        ['Speaker 2', 'He said " I will send the slides. I will book the room. " But he never did.'],
      ]),
    ).toEqual([]);
  });

  it('takes "who wants to …" as a relative clause, not a call for a volunteer', () => {
    expect(
      people([
        [
          'Speaker 1',
          'We might lose the chance to help somebody later who wants to do some processing on it.',
        ],
        ['Speaker 2', "I'll be honest."],
      ]),
    ).toEqual([]);
  });

  it('does not take "you can …, when you say …" (how a thing works) as a request', () => {
    expect(
      people([
        ['Speaker 1', 'So you can program your coffee maker that when you say good morning it says hello.'],
        ['Speaker 2', 'Yeah.'],
      ]),
    ).toEqual([]);
  });
});

describe('action items: rounds of assignments', () => {
  it('gives the last unnamed "you" of a round to the one participant left without work', () => {
    expect(
      roles([
        [
          'Project Manager',
          'The I_D_ is going to do the look and feel design, the U_I_D_ the user interface design.',
        ],
        ['User Interface', 'Yeah.'],
        ['Project Manager', "And you're gonna do some product evaluation."],
      ]),
    ).toEqual([
      { text: 'Do the look and feel design', assignee: 'Industrial Designer' },
      { text: 'Do the user interface design', assignee: 'User Interface' },
      { text: 'Do some product evaluation', assignee: 'Marketing' },
    ]);
  });

  it('leaves an unnamed "you" unassigned when more than one participant is left', () => {
    expect(
      roles([
        ['Project Manager', 'The Industrial Designer will do the components concept.'],
        ['Project Manager', "And you're gonna do some research on the prices."],
      ]),
    ).toEqual([
      { text: 'Do the components concept', assignee: 'Industrial Designer' },
      { text: 'Do some research on the prices' },
    ]);
  });

  it('reads "what we\'re going to do is the X will do …" and "shall we …"', () => {
    expect(
      roles([
        [
          'Project Manager',
          "What we're going to do for the next meeting is the Industrial Designer will do the components concept.",
        ],
        ['Industrial Designer', 'Well shall we look into the surround controls and get back together.'],
      ]),
    ).toEqual([
      { text: 'Do the components concept', assignee: 'Industrial Designer' },
      { text: 'Look into the surround controls and get back together' },
    ]);
  });
});

describe('action items: plans, duties and follow-ups', () => {
  it('reads "what we want to do is …" (the team\'s) and "my plan is to …" (the speaker\'s)', () => {
    expect(
      people([
        ['Speaker 1', 'So what we want to do next is to compare the two transformations.'],
        ['Speaker 2', 'My plan is to rerun the experiments with the new features.'],
      ]),
    ).toEqual([
      { text: 'Compare the two transformations' },
      { text: 'Rerun the experiments with the new features', assignee: 'Bob Smith' },
    ]);
  });

  it('reads "you two are on … duty", "I\'ll get more details and pass them on" and "get back to you on that"', () => {
    expect(
      people([
        ['Speaker 1', 'I guess you two are on plasticine duty or whatever.'],
        ['Speaker 2', "I'll get more details and pass them on to the member."],
        ['Speaker 3', "Okay, I'll get back to you on that."],
      ]),
    ).toEqual([
      { text: 'Plasticine duty' },
      { text: 'Get more details and pass them on to the member', assignee: 'Bob Smith' },
      { text: 'Get back to you on that', assignee: 'Maria Lopez' },
    ]);
  });

  it('takes "we\'ll write to you about …" as a follow-up even without "later"', () => {
    expect(
      people([
        ['Speaker 1', "We'll write to you about the points we haven't covered."],
        ['Speaker 2', "We'll go for a small bear. We will always work for our members."],
      ]),
    ).toEqual([{ text: "Write to you about the points we haven't covered" }]);
  });

  it('drops tasks cut off before their object ("put the notes on the", "make sure that")', () => {
    expect(
      people([
        ['Speaker 1', "I'll put the notes on the"],
        ['Speaker 2', "I'll make sure that"],
        ['Speaker 3', 'Bob will work on'],
      ]),
    ).toEqual([]);
  });

  it('gives the role-less last entry of a list of assignments to whoever is left', () => {
    expect(
      roles([
        [
          'Project Manager',
          'The Industrial Designer will do the components concept, User Interface Designer the user interface concept, and the trend watching.',
        ],
      ]),
    ).toEqual([
      { text: 'Do the components concept', assignee: 'Industrial Designer' },
      { text: 'Do the user interface concept', assignee: 'User Interface' },
      { text: 'Do the trend watching', assignee: 'Marketing' },
    ]);
  });
});

describe('action items: the way people talk', () => {
  it('reads a promise after a false start and stray fragments ("I will, e @ @ p push …")', () => {
    expect(
      people([
        [
          'Speaker 1',
          "And I will tr getting information, I'll try and forward it to the team as soon as I get it.",
        ],
        ['Speaker 2', 'So, I will, e @ @ p push some more on the parser and try to understand it.'],
        ['Speaker 3', "And I I'll think s through the ontology question one more time."],
      ]),
    ).toEqual([
      { text: 'Forward it to the team as soon as I get it', assignee: 'Alice Chen' },
      { text: 'Push some more on the parser and try to understand it', assignee: 'Bob Smith' },
      { text: 'Think through the ontology question one more time', assignee: 'Maria Lopez' },
    ]);
  });

  it('gives an unnamed "you need to …" to the one person the speaker is talking with', () => {
    expect(
      people([
        ['Speaker 2', 'What about the sales figures?'],
        ['Speaker 1', 'Yeah, so basically you need to interact with the design team more.'],
        ['Speaker 2', 'Mm-hmm.'],
      ]),
    ).toEqual([{ text: 'Interact with the design team more', assignee: 'Bob Smith' }]);
  });

  it('keeps one item for a request said twice, in its more specific wording', () => {
    expect(
      people([
        ['Speaker 1', "Bob, you'll have to interact with Christine and discuss with her."],
        [
          'Speaker 1',
          'Bob, you need to interact with Christine more, for the user acceptability and the testing.',
        ],
      ]),
    ).toEqual([
      {
        text: 'Interact with Christine more, for the user acceptability and the testing',
        assignee: 'Bob Smith',
      },
    ]);
  });

  it('reads "I encourage you to …" and a name after a preposition as the object, not the addressee', () => {
    expect(
      people([
        ['Speaker 1', 'And like I say, I encourage you to go ahead and meet, next week with, Hynek.'],
        ['Speaker 2', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Meet, next week with, Hynek', assignee: 'Bob Smith', due: '2026-11-30' }]);
  });

  it('reads "I still have to do my minutes", "complete the questionnaire" and "we\'ve got the design for the I_D_"', () => {
    expect(
      roles([
        ['Project Manager', 'And I still have to do my minutes for the last meeting.'],
        ['Project Manager', 'Um complete the final questionnaire and meeting summary.'],
        [
          'Project Manager',
          "So we've got the working design for I_D_. For U_I_D_ the technical functions design.",
        ],
      ]),
    ).toEqual([
      { text: 'Do my minutes for the last meeting', assignee: 'Project Manager' },
      { text: 'Complete the final questionnaire and meeting summary' },
      { text: 'The working design', assignee: 'Industrial Designer' },
      { text: 'The technical functions design', assignee: 'User Interface' },
    ]);
  });

  it('splits "you have to work on X and you have to work on Y, in fact you two …", each to its AMI role', () => {
    expect(
      roles([
        [
          'Project Manager',
          'You have to work on the look and feel design and you have to work on the user interface, in fact you two you have to work together to model the first prototype.',
        ],
      ]),
    ).toEqual([
      // Work only the AMI scenario assigns: the look and feel is the Industrial Designer's, the interface the
      // User Interface Designer's (scenario-roles.ts); work together is no one's.
      { text: 'Work on the look and feel design', assignee: 'Industrial Designer' },
      { text: 'Work on the user interface', assignee: 'User Interface' },
      { text: 'Work together to model the first prototype' },
    ]);
  });
});

describe('action items: more ways to hand out and defer work', () => {
  it('reads "X for the …" and "for marketing the …" in a round of assignments', () => {
    expect(
      roles([
        [
          'Project Manager',
          'The industrial design is the first one, for the working design, and for marketing the user requirements specification.',
        ],
      ]),
    ).toEqual([
      { text: 'The working design', assignee: 'Industrial Designer' },
      { text: 'The user requirements specification', assignee: 'Marketing' },
    ]);
  });

  it('reads "we may have to come back to …", "the idea was to …" and "I\'ll go ahead and enter the data"', () => {
    expect(
      people([
        ['Speaker 1', 'Well we may have to come back to one or two of these points at our next meeting.'],
        ['Speaker 2', 'So the idea was to try different features as input to the network.'],
        ['Speaker 3', "What I'll do then is I'll go ahead and enter the data and hand off to Jane."],
      ]),
    ).toEqual([
      { text: 'Come back to one or two of these points at our next meeting' },
      { text: 'Try different features as input to the network' },
      { text: 'Enter the data and hand off to Jane', assignee: 'Maria Lopez' },
    ]);
  });

  it('reads an imperative after "maybe for next meeting", but not "work together to reach our aims"', () => {
    expect(
      people([
        ['Speaker 1', 'Maybe for next meeting send your presentation by email.'],
        ['Speaker 2', 'So we have to work together to reach our aims.'],
      ]),
    ).toEqual([{ text: 'Send your presentation by email' }]);
  });
});

describe('sentences: a filler that opens a sentence', () => {
  it('splits at "… control . Um , you will …" and capitalises the next word', () => {
    expect(splitText(cleanText('work on the remote control . Um , you will receive an email .'))).toEqual([
      'work on the remote control.',
      'You will receive an email.',
    ]);
  });
});

describe('action items: the third round of issue 17', () => {
  it('gives "you\'re going to …" to a role said in lower case before it ("as the industrial designer, …")', () => {
    expect(
      roles([
        [
          'Project Manager',
          "So in between now and then, as the industrial designer, you're gonna be working on the working design.",
        ],
        ['Marketing', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Work on the working design', assignee: 'Industrial Designer' }]);
  });

  it('lets the AMI scenario overrule a guess from who answered an unnamed "you"', () => {
    // Nobody is named: the answer "okay" is a guess, and product evaluation is Marketing's work.
    expect(
      roles([
        ['Project Manager', "You're gonna look at product evaluation."],
        ['User Interface', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Look at product evaluation', assignee: 'Marketing' }]);
    // A role named before the request is not a guess: it stands.
    expect(
      roles([
        ['Project Manager', "And for the User Interface, you're gonna look at product evaluation."],
        ['User Interface', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Look at product evaluation', assignee: 'User Interface' }]);
    // Work the scenario gives no one keeps the guess.
    expect(
      roles([
        ['Project Manager', "You're gonna book the meeting room."],
        ['User Interface', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Book the meeting room', assignee: 'User Interface' }]);
  });

  it('reads "why don\'t we …?" as the team\'s suggestion and "I\'d need to …" as the speaker\'s duty', () => {
    expect(
      people([
        ['Speaker 1', "Why don't we plan to give you feedback electronically?"],
        ['Speaker 2', "I'd need to talk to manufacturing again about the shell."],
      ]),
    ).toEqual([
      { text: 'Plan to give you feedback electronically' },
      { text: 'Talk to manufacturing again about the shell', assignee: 'Bob Smith' },
    ]);
    // A spoken tag is a whole word: "notebook" keeps its "ok", "espresso" its "so".
    expect(
      people([
        ['Speaker 1', "I'll bring the notebook."],
        ['Speaker 2', "I'll make an espresso, okay?"],
      ]).map((i) => i.text),
    ).toEqual(['Bring the notebook', 'Make an espresso']);
    // "Why don't we" about the present is a question, not a plan.
    expect(people([['Speaker 1', "Why don't we have more time?"]])).toEqual([]);
  });

  it('takes "read", "mention … to", "see if we can", "fit … together" and "start …ing" only with their complement', () => {
    expect(
      people([
        ['Speaker 1', 'I should read the paper.'],
        ['Speaker 2', "I'll mention it to the transcribers."],
        ['Speaker 3', "I'll see if we can get a second microphone."],
        ['Speaker 1', "We're going to fit all the pieces together next meeting."],
        ['Speaker 2', "We're gonna start recording them next week."],
      ]),
    ).toEqual([
      { text: 'Read the paper', assignee: 'Alice Chen' },
      { text: 'Mention it to the transcribers', assignee: 'Bob Smith' },
      { text: 'See if we can get a second microphone', assignee: 'Maria Lopez' },
      { text: 'Fit all the pieces together next meeting' },
      { text: 'Start recording them next week', due: '2026-11-30' },
    ]);
    expect(
      people([
        ['Speaker 1', "Let's read the digits."],
        ['Speaker 2', "I'll mention that."],
        ['Speaker 3', "I'll see if it works this way."],
        ['Speaker 1', "Let's start with the budget."],
      ]),
    ).toEqual([]);
  });

  it('reads a name between commas inside a request as its addressee, and two names before "you" as two people', () => {
    expect(
      people([
        ['Speaker 1', 'And you will have to work more, Maria, on the spongy touch of the buttons.'],
        ['Speaker 2', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Work more on the spongy touch of the buttons', assignee: 'Maria Lopez' }]);
    // After a preposition the name is the object: whoever answers is asked.
    expect(
      people([
        ['Speaker 1', 'Can you talk to, Maria, about the buttons?'],
        ['Speaker 2', 'Sure.'],
      ]),
    ).toEqual([{ text: 'Talk to, Maria, about the buttons', assignee: 'Bob Smith' }]);
    expect(
      people([
        ['Speaker 1', 'Bob and Maria you will have to work together on the prototype.'],
        ['Speaker 2', 'Okay.'],
      ]),
    ).toEqual([{ text: 'Work together on the prototype' }]);
  });
});
