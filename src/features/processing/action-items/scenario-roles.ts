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
