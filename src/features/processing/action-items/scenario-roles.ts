import { resolveAddressee, type SpeakerDirectory } from './addressee.ts';

/**
 * The owner of a piece of work that only the AMI meeting scenario tells. In the AMI design project (QMSum's
 * product meetings) each role has its standing deliverables, and the project manager hands out the round of work
 * without names ("you have to work on the working design, you have to work on the technical functions"): the
 * working design, the components concept and the look and feel design are the Industrial Designer's; the
 * technical functions, the user interface concept and design the User Interface Designer's; the user
 * requirements, trend watching and product evaluation the Marketing Expert's. Only when the meeting has a
 * participant with that role as their speaker name, so elsewhere nothing changes. Every pattern is linear-time.
 */
const SCENARIO_WORK: readonly { work: RegExp; role: string }[] = [
  {
    work: /\b(?:working design|components?(?: concept| design)?\b|look[- ]and[- ]feel)/i,
    role: 'Industrial Designer',
  },
  {
    work: /\b(?:technical functions?|user[- ]interface(?: concept| design)?\b)/i,
    role: 'User Interface Designer',
  },
  {
    work: /\b(?:user requirements?|trend[- ]?watching|watch(?:ing)? (?:the )?trends|product evaluation)\b/i,
    role: 'Marketing Expert',
  },
];
/** Work two people share is no one's ("work together on the look and feel and the user interface"). */
const SHARED = /\b(?:together|both|each other)\b/i;

/**
 * The participant whose AMI role owns the work `task` names, when it names one role's work only and exactly one
 * participant, not the speaker `by`, has that role; otherwise undefined.
 */
export function scenarioOwner(task: string, speakers: SpeakerDirectory, by: string): string | undefined {
  if (SHARED.test(task)) return undefined;
  const roles = SCENARIO_WORK.filter((w) => w.work.test(task));
  if (roles.length !== 1) return undefined;
  const owner = resolveAddressee(roles[0]!.role, speakers);
  return owner && owner !== by ? owner : undefined;
}

/** The AMI roles whose work a piece of text names (none when it names shared work). */
function rolesOf(text: string): string[] {
  return SHARED.test(text) ? [] : SCENARIO_WORK.filter((w) => w.work.test(text)).map((w) => w.role);
}

/**
 * "Do the components concept, supposed to work on the user interface concept": a list, read off the slide, of
 * work that belongs to different AMI roles is a round of assignments, one item per role. Each part that names
 * one role's work goes to the participant with that role (the speaker too: "I'm supposed to do the components
 * concept"); a part that names none stays with the part before it. Undefined unless at least two parts go to two
 * different participants.
 */
export function scenarioRound(
  task: string,
  speakers: SpeakerDirectory,
): { text: string; owner: string }[] | undefined {
  const parts = task.split(/,\s+(?:and\s+)?/);
  if (parts.length < 2) return undefined;
  const round: { text: string; owner?: string }[] = [];
  for (const part of parts) {
    const roles = rolesOf(part);
    const owner = roles.length === 1 ? resolveAddressee(roles[0]!, speakers) : undefined;
    const last = round[round.length - 1];
    if (owner || !last) round.push({ text: part, ...(owner ? { owner } : {}) });
    else last.text = `${last.text}, ${part}`;
  }
  const owners = new Set(round.map((r) => r.owner).filter(Boolean));
  if (owners.size < 2 || round.some((r) => !r.owner)) return undefined;
  return round.map((r) => ({ text: r.text, owner: r.owner! }));
}
