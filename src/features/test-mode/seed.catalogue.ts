/**
 * The hand-written material of the test-mode data set: twelve meeting types, each with two variants, so the
 * seed has 24 notes. `{A}`…`{D}` are the first names of the people speaking in roles 0–3; every other
 * `{name}` comes from the variant. seed.dataset.ts turns this into notes with a seeded PRNG.
 */

/** A turn: who speaks (role index) and what they say. */
export type Turn = readonly [role: number, text: string];

export interface SeedActionTemplate {
  text: string;
  /** Role of the speaker the item is assigned to; absent: unassigned. */
  assignee?: number;
  /** Days after the meeting the item is due; absent: no due date. */
  dueInDays?: number;
}

export interface TopicTemplate {
  key: string;
  /** How many people speak; turns refer to them by role. */
  speakers: 3 | 4;
  tags: readonly string[];
  title: string;
  summary: string;
  turns: readonly Turn[];
  /** Indices of the turns that become highlights. */
  highlights: readonly number[];
  actions: readonly SeedActionTemplate[];
  /** Exactly two: the values of the template's own placeholders. */
  variants: readonly [Readonly<Record<string, string>>, Readonly<Record<string, string>>];
}

/** Display names of the people in the mock meetings; each note draws its speakers from here. */
export const PEOPLE = [
  'Maya Chen',
  'Daniel Okafor',
  'Sofia Marquez',
  "Liam O'Brien",
  'Aisha Rahman',
  'Jonas Weber',
  'Hannah Kim',
  'Marco Rossi',
  'Elena Petrova',
  'Kwame Mensah',
  'Chloé Martin',
  'Ravi Patel',
  'Nora Lindqvist',
  'Yuki Tanaka',
  'Samuel Adeyemi',
  'Grace Liu',
] as const;

export const TOPICS: readonly TopicTemplate[] = [
  {
    key: 'product-planning',
    speakers: 4,
    tags: ['Product', 'Planning'],
    title: '{sprint} planning: {feature}',
    summary:
      'The team scoped {feature} for {sprint}. A technical spike on {spike} comes first, then a beta behind a ' +
      'feature flag in about two weeks, with general availability once error rates look healthy. Design copy ' +
      'is due on Wednesday and support will prepare a help-center article for the beta accounts.',
    turns: [
      [0, "Okay, let's get started. The goal today is to lock the scope for {feature} in {sprint}."],
      [
        1,
        'I went through the backlog yesterday. There are fourteen tickets tagged {feature}, but only about eight of them are really needed for a first release.',
      ],
      [
        2,
        'From the design side the main flows are done. The empty states and the error messages still need copy.',
      ],
      [0, 'What is the riskiest part?'],
      [1, "{risk}. We haven't done that before, so I would put a spike at the start of the sprint."],
      [
        3,
        'Support has been asking for this for months. {customer} alone opened six tickets about it last quarter.',
      ],
      [
        0,
        'Good, that helps with prioritisation. Can we ship behind a feature flag and open it to a few accounts first?',
      ],
      [1, 'Yes, the flag system handles that. I would say two weeks to beta if the spike goes well.'],
      [2, 'Then I need the final copy by Wednesday so it can go through review.'],
      [3, 'I can draft the help-center article in parallel and send it to the beta accounts.'],
      [
        0,
        "Let's agree: the spike first, beta behind a flag in two weeks, general availability after we see the error rates.",
      ],
      [1, "Agreed. I'll split the tickets and put estimates on them today."],
      [0, 'Great. {C}, can you share the updated mockups in the channel after this call?'],
      [2, 'Will do.'],
    ],
    highlights: [4, 10],
    actions: [
      { text: 'Split the {feature} tickets and add estimates', assignee: 1, dueInDays: 1 },
      { text: 'Run the technical spike on {spike}', assignee: 1, dueInDays: 4 },
      { text: 'Share the updated {feature} mockups in the team channel', assignee: 2, dueInDays: 2 },
      { text: 'Draft the help-center article for the {feature} beta', assignee: 3, dueInDays: 10 },
    ],
    variants: [
      {
        sprint: 'Sprint 41',
        feature: 'bulk export',
        spike: 'exporting very large workspaces',
        risk: 'Exporting very large workspaces, anything above fifty thousand notes',
        customer: 'Northwind Logistics',
      },
      {
        sprint: 'Sprint 44',
        feature: 'calendar sync',
        spike: 'recurring events and time zones',
        risk: 'Handling recurring events and time zones correctly',
        customer: 'Brightline Health',
      },
    ],
  },
  {
    key: 'budget-review',
    speakers: 4,
    tags: ['Finance', 'Budget'],
    title: '{quarter} budget review: {dept}',
    summary:
      '{quarter} {dept} spending came in about {pct}% (roughly {amount} dollars) over plan, mainly because {causeShort}. ' +
      'The team agreed to flag any line item more than 10% over plan in an automated weekly report and to ' +
      'recover part of the overrun next quarter by {cut}. A revised forecast goes to leadership on Friday.',
    turns: [
      [
        0,
        "Thanks for joining. This is the {quarter} budget review for {dept}. I'll start with the headline.",
      ],
      [
        0,
        'Short version: the budget was exceeded by about {pct} percent, roughly {amount} dollars over plan.',
      ],
      [1, 'Do we know where it came from? The forecast in the middle of the quarter still looked fine.'],
      [2, 'Most of it is one line item. {cause}.'],
      [1, 'Was that approved anywhere, or did it just accumulate?'],
      [
        2,
        'Partly. The original request was approved, but the overrun on top of it was never reviewed by anyone.',
      ],
      [
        3,
        'From finance we need two things: a corrected forecast for next quarter, and a rule for when a team has to flag spending above plan.',
      ],
      [
        0,
        "I'd suggest a threshold. Anything more than ten percent over a line item gets flagged in the weekly report.",
      ],
      [
        1,
        'Fine with me, as long as the report is automated. Nobody is going to fill in another spreadsheet.',
      ],
      [2, 'We can recover part of it next quarter by {cut}. That alone saves about a third of the overrun.'],
      [
        3,
        'Please put that in the revised forecast with the numbers, so I can take it to the leadership meeting on Friday.',
      ],
      [
        0,
        'Okay. To summarise: we overspent, we know why, we add the ten percent threshold, and {C} prepares the revised forecast.',
      ],
      [3, 'And I will check whether any of it can be booked as a one-off cost.'],
      [1, "Sounds good. Let's review again in four weeks."],
    ],
    highlights: [1, 7, 9],
    actions: [
      { text: 'Prepare the revised {nextQuarter} forecast for {dept}', assignee: 2, dueInDays: 3 },
      { text: 'Automate the weekly spend report with a 10% over-plan flag', assignee: 1, dueInDays: 14 },
      {
        text: 'Check whether part of the overrun can be booked as a one-off cost',
        assignee: 3,
        dueInDays: 5,
      },
      { text: 'Schedule the follow-up budget review in four weeks', assignee: 0 },
    ],
    variants: [
      {
        quarter: 'Q3',
        nextQuarter: 'Q4',
        dept: 'marketing',
        pct: '18',
        amount: '42,000',
        cause: 'The trade-show season cost far more than planned, mostly booth fees and travel',
        causeShort: 'trade-show booth fees and travel',
        cut: 'pausing two paid social campaigns',
      },
      {
        quarter: 'Q2',
        nextQuarter: 'Q3',
        dept: 'infrastructure',
        pct: '12',
        amount: '65,000',
        cause: 'Cloud spend grew faster than traffic after the data-pipeline migration',
        causeShort: 'cloud costs after the data-pipeline migration',
        cut: 'moving the analytics cluster to reserved instances',
      },
    ],
  },
  {
    key: 'hiring-debrief',
    speakers: 4,
    tags: ['Hiring'],
    title: 'Candidate debrief: {candidate}, {role}',
    summary:
      'Debrief for {candidate} ({role}): all four interviewers voted yes. One reservation, {concernShort}, will ' +
      'be handled with a mentor during onboarding. The team will make an offer at the top of the band and ask ' +
      'for a second reference from a former manager.',
    turns: [
      [
        0,
        "Let's do the debrief for {candidate}, who interviewed for the {role} position yesterday. Please give your vote first, then the reasons.",
      ],
      [1, 'Strong yes from me. {strength}'],
      [2, 'Yes, with one reservation. {concern}'],
      [
        3,
        "I'm a yes. The values interview went well; they asked really good questions about how we run incidents and how decisions get made.",
      ],
      [0, '{C}, is the reservation a blocker, or something we can support during onboarding?'],
      [2, 'Not a blocker. With a good mentor in the first three months it should be fine.'],
      [1, 'I agree. And honestly, in {exercise} they were better than most people already on the team.'],
      [0, 'What about compensation? Their expectation is at the top of our band.'],
      [3, "The band allows it for this level. I'd rather not lose them over a small difference."],
      [0, "Okay, then we make an offer. I'll talk to the recruiter today."],
      [1, 'Can we also ask for a second reference, from someone who managed them directly?'],
      [0, 'Good point. {D}, can you ask the recruiter to arrange it?'],
      [3, "Sure, I'll do that this afternoon."],
    ],
    highlights: [1, 9],
    actions: [
      { text: 'Confirm the offer for {candidate} with the recruiter', assignee: 0, dueInDays: 2 },
      { text: 'Arrange a second reference check for {candidate}', assignee: 3, dueInDays: 3 },
      { text: 'Pick an onboarding mentor for the new {role}', assignee: 2, dueInDays: 21 },
    ],
    variants: [
      {
        candidate: 'Priya Nair',
        role: 'Senior Backend Engineer',
        strength:
          "Their answers on database indexing and failure modes were the best I've heard this year, and they explained the trade-offs clearly.",
        concern:
          "They've mostly worked at large companies, so I'm not sure how they'll handle the ambiguity here.",
        concernShort: 'little experience with the ambiguity of a small company',
        exercise: 'the system design interview',
      },
      {
        candidate: 'Tomás Rivera',
        role: 'Product Designer',
        strength:
          'The portfolio shows real research behind each decision, and they could explain why they dropped ideas, not just what they shipped.',
        concern: 'They have little experience with design systems, and we need someone to own ours soon.',
        concernShort: 'little experience with design systems',
        exercise: 'the portfolio review',
      },
    ],
  },
  {
    key: 'customer-call',
    speakers: 3,
    tags: ['Customer', 'Sales'],
    title: 'Customer check-in: {customer}',
    summary:
      'Check-in with {customer} before the renewal {renewal}: about {seats} active users and good adoption. ' +
      'Their main problem, {issueShort}, has a fix in review for Thursday. They want a quote for expanding to ' +
      'the {team} team plus our security package, and an API example for syncing action items into Jira.',
    turns: [
      [
        0,
        'Hi {B}, thanks for making time. We wanted to check in before the renewal {renewal} and hear how things are going.',
      ],
      [
        1,
        "Thanks. Overall the team likes the product. Adoption is good, we're at about {seats} active users now.",
      ],
      [0, "That's great to hear. Is anything getting in the way?"],
      [1, 'One thing, yes. {issue} It has been going on for two weeks and people are getting frustrated.'],
      [
        2,
        'I saw the ticket. We reproduced it on Monday, and the fix is in review. I expect it in production by Thursday.',
      ],
      [1, "Okay, that's good. Could you let me know when it's deployed, so I can tell our team?"],
      [2, "Of course. I'll email you directly once it's live and verified."],
      [0, "On the renewal, you mentioned last time that you're considering expanding to the {team} team."],
      [
        1,
        'Yes, but I need a quote for the additional seats and something I can show our security team, like the SOC 2 report.',
      ],
      [0, "No problem. I'll send the quote and the security package this week."],
      [
        1,
        'Also, is API access included in our plan? One of our engineers wants to sync action items into Jira.',
      ],
      [
        2,
        'It is. I can send a short example of how to list action items and mark them completed through the API.',
      ],
      [1, 'Perfect. That would help a lot.'],
      [
        0,
        'Great. So: the fix by Thursday, the quote and security package this week, and the API example. Thanks, {B}!',
      ],
    ],
    highlights: [3, 8, 10],
    actions: [
      { text: 'Email {customer} when the fix for {issueShort} is live', assignee: 2, dueInDays: 3 },
      { text: 'Send {customer} the expansion quote and the security package', assignee: 0, dueInDays: 5 },
      { text: 'Send {customer} an API example for syncing action items', assignee: 2, dueInDays: 7 },
    ],
    variants: [
      {
        customer: 'Northwind Logistics',
        renewal: 'at the end of next month',
        seats: '250',
        team: 'operations',
        issue: 'The SSO login loops for users in two of our regions.',
        issueShort: 'the SSO login loop',
      },
      {
        customer: 'Brightline Health',
        renewal: 'in six weeks',
        seats: '120',
        team: 'clinical research',
        issue: 'Exports time out for our largest workspace.',
        issueShort: 'the export timeouts',
      },
    ],
  },
  {
    key: 'incident-retro',
    speakers: 4,
    tags: ['Incident', 'Engineering'],
    title: 'Incident retro: {service} outage',
    summary:
      'Blameless retro of the {service} outage ({duration}). Root cause: {causeShort}. Detection was slow because ' +
      '{detectShort}. Follow-ups: {fixShort}, per-endpoint error-rate alerts, and a status page update within ' +
      '15 minutes as part of the incident checklist. The postmortem will be shared company-wide on Friday.',
    turns: [
      [
        0,
        "This is the retro for last week's {service} incident. Blameless format as usual: we look at the system, not at people.",
      ],
      [1, 'Timeline first. The outage lasted {duration}. The root cause was that {cause}.'],
      [2, 'The part that worries me most is detection: {detect}.'],
      [0, 'How did we finally find it?'],
      [
        1,
        'I looked at the dashboards and saw the latency spike lining up with the deploy time. After that it was quick.',
      ],
      [
        3,
        'From the support side, we got about thirty tickets. An earlier status page update would have saved us half of them.',
      ],
      [0, 'So there are three themes: the change itself, detection, and communication.'],
      [2, 'For the change: we should {fix}.'],
      [1, 'And for detection, an alert on error rate per endpoint, not only on overall availability.'],
      [
        3,
        'For communication, can we make a status page update part of the incident checklist, within fifteen minutes?',
      ],
      [0, "Yes. I'd like an owner and a date for each of these before we close."],
      [2, "I'll take the fix for the change; it fits in this sprint."],
      [1, "I'll do the alerting."],
      [3, "I'll update the checklist and the status page templates."],
      [0, "Thanks, everyone. I'll write up the postmortem and share it with the whole company on Friday."],
    ],
    highlights: [1, 2, 9],
    actions: [
      { text: '{fixAction}', assignee: 2, dueInDays: 7 },
      { text: 'Add per-endpoint error-rate alerts for the {service}', assignee: 1, dueInDays: 10 },
      { text: 'Add a 15-minute status page update to the incident checklist', assignee: 3, dueInDays: 4 },
      { text: 'Publish the {service} postmortem', assignee: 0, dueInDays: 5 },
    ],
    variants: [
      {
        service: 'search API',
        duration: '47 minutes',
        cause:
          'a configuration change lowered the database connection pool to five, and under the Monday morning load every request queued behind it',
        causeShort: 'a config change shrank the database connection pool',
        detect: 'customers reported it before our alerts did',
        detectShort: 'customers noticed before the alerts did',
        fix: 'roll back the config and validate pool sizes in the deploy pipeline',
        fixShort: 'validating pool sizes on deploy',
        fixAction: 'Add connection pool size validation to the deploy pipeline',
      },
      {
        service: 'webhook delivery',
        duration: 'two hours and ten minutes',
        cause:
          'a certificate on the internal queue cluster expired, and the workers silently stopped acknowledging jobs',
        causeShort: 'an expired certificate on the queue cluster',
        detect: 'the alert fired, but it went to a channel nobody watches on weekends',
        detectShort: 'the alert went to an unwatched channel',
        fix: 'automate certificate renewal and alert thirty days before anything expires',
        fixShort: 'automated certificate renewal',
        fixAction: 'Automate certificate renewal for the queue cluster',
      },
    ],
  },
  {
    key: 'design-review',
    speakers: 3,
    tags: ['Design', 'Product'],
    title: 'Design review: {featureShort}',
    summary:
      'Review of {feature} after usability testing: {cutShort}, and seven of eight participants now finish ' +
      'without help. Approved on condition of a contrast fix; the second-screen animation becomes a simple fade ' +
      'and buttons get screen-reader labels. Success will be measured by completion rate and time to first note.',
    turns: [
      [0, "I'll share my screen. This is the latest version of {feature}, after the usability tests."],
      [0, 'The biggest change is that we cut {cut}. In the tests, people got stuck there.'],
      [1, 'It looks much cleaner. How did the participants do with the new version?'],
      [0, 'Seven out of eight completed the task without help. In the old version it was four out of eight.'],
      [
        2,
        'Engineering-wise, the animation on the second screen worries me a bit. It will stutter on older Android phones.',
      ],
      [0, "We can replace it with a simple fade. The animation isn't essential."],
      [1, 'What about accessibility? The grey text on the light background looks low contrast.'],
      [0, "Good catch. It's below the 4.5 to 1 ratio; I'll darken it."],
      [2, 'And the buttons need proper labels for screen readers. I can add them when I build it.'],
      [1, 'Are we measuring success after launch?'],
      [
        0,
        "Yes: completion rate and time to first note. We'll compare the two weeks before and after launch.",
      ],
      [1, "Then I'm happy to approve it, with the contrast fix."],
      [2, "I'll start building next week."],
    ],
    highlights: [3, 7],
    actions: [
      { text: 'Fix the text contrast in the {featureShort} to reach 4.5:1', assignee: 0, dueInDays: 2 },
      { text: 'Replace the second-screen animation with a fade', assignee: 0, dueInDays: 4 },
      { text: 'Add screen-reader labels to the {featureShort} buttons', assignee: 2, dueInDays: 12 },
      { text: 'Set up a completion-rate dashboard for the {featureShort}', dueInDays: 14 },
    ],
    variants: [
      {
        feature: 'the new onboarding flow',
        featureShort: 'onboarding flow',
        cut: 'the workspace setup from five screens to two',
        cutShort: 'workspace setup went from five screens to two',
      },
      {
        feature: 'the mobile note editor',
        featureShort: 'mobile editor',
        cut: 'the formatting toolbar down to the six most used actions',
        cutShort: 'the formatting toolbar was cut to six actions',
      },
    ],
  },
  {
    key: 'marketing-sync',
    speakers: 4,
    tags: ['Marketing'],
    title: 'Marketing sync: {campaignShort}',
    summary:
      '{campaignCap} is at {signups} sign-ups, about {pctTarget}% of target with a week left. {channel} performs ' +
      'best (about {cps} dollars per sign-up), so the remaining search budget moves there, except brand terms. The ' +
      'landing page hero gets an A/B test (video vs. screenshot) because of a high mobile bounce rate.',
    turns: [
      [0, "Let's go through {campaign}. {B}, can you start with the numbers?"],
      [
        1,
        'Sure. We are at {signups} sign-ups so far, which is about {pctTarget} percent of target with one week left.',
      ],
      [0, 'Which channels are performing?'],
      [
        1,
        '{channelCap} is doing best by far, the cost per sign-up is around {cps} dollars. Search ads are expensive and convert poorly.',
      ],
      [2, 'Then we should move the rest of the search budget to {channel}.'],
      [3, "I'd keep a small amount on search for brand terms, otherwise competitors bid on our name."],
      [0, "Fair. Let's keep the brand terms and move the rest."],
      [2, 'The landing page also needs work. The bounce rate on mobile is almost seventy percent.'],
      [
        3,
        'I think the hero video is the problem; it loads slowly on mobile. We could replace it with a screenshot.',
      ],
      [1, 'We could run an A/B test for the last week, video against screenshot.'],
      [
        0,
        "Do it. And let's prepare the customer stories for the next wave; two customers have agreed to be quoted.",
      ],
      [2, "I'll draft both stories and send them for approval by Friday."],
      [0, 'Great. Same time next week.'],
    ],
    highlights: [1, 3, 8],
    actions: [
      {
        text: 'Move the remaining search budget to {channel}, keeping brand terms',
        assignee: 1,
        dueInDays: 1,
      },
      { text: 'Run an A/B test of the landing page hero: video vs. screenshot', assignee: 3, dueInDays: 3 },
      { text: 'Draft the two customer stories for approval', assignee: 2, dueInDays: 4 },
    ],
    variants: [
      {
        campaign: 'the spring launch campaign',
        campaignShort: 'spring launch campaign',
        campaignCap: 'The spring launch campaign',
        signups: '1,840',
        pctTarget: '85',
        channel: 'LinkedIn ads',
        channelCap: 'LinkedIn ads',
        cps: '14',
      },
      {
        campaign: 'the webinar series',
        campaignShort: 'webinar series',
        campaignCap: 'The webinar series',
        signups: '620',
        pctTarget: '60',
        channel: 'the partner newsletter',
        channelCap: 'The partner newsletter',
        cps: '22',
      },
    ],
  },
  {
    key: 'roadmap-review',
    speakers: 4,
    tags: ['Roadmap', 'Planning', 'Product'],
    title: 'Roadmap review: {period}',
    summary:
      'Roadmap for {period}: three bets, namely {bet}, performance on large workspaces, and the Slack ' +
      'integration. {droppedCap} is postponed to the backlog; the two customers who asked for it will be told ' +
      'directly. The public roadmap and an internal announcement follow.',
    turns: [
      [
        0,
        'The goal today is to agree on the roadmap for {period}. We have capacity for about three big bets.',
      ],
      [
        1,
        'From the customer interviews, the clearest demand is for {bet}. It came up in almost every conversation.',
      ],
      [
        2,
        "Engineering can do it, but it's at least two months for a solid version. We'd need one more person on the team.",
      ],
      [0, 'What would we drop to make room?'],
      [
        3,
        'My proposal is to postpone {dropped}. Usage of the related features is low, and only two customers asked for it.',
      ],
      [1, "I'm fine with that, but we should tell those two customers directly, not through a changelog."],
      [
        2,
        'The second bet should be performance. Page load on large workspaces is getting worse every month.',
      ],
      [0, 'Agreed, that also reduces churn risk. And the third?'],
      [3, 'Integrations. Calendar and Slack are the most requested, and they help with acquisition.'],
      [1, 'Can we do both integrations, or just one?'],
      [2, "One, properly. I'd say Slack first, because the API is simpler and the demand is higher."],
      [0, 'Okay. So: {bet}, performance, and the Slack integration. {droppedCap} moves to the backlog.'],
      [3, "I'll update the public roadmap and write the internal announcement."],
      [0, "And I'll talk to the two customers about {dropped} myself."],
    ],
    highlights: [1, 4, 11],
    actions: [
      { text: 'Update the public roadmap for {period}', assignee: 3, dueInDays: 5 },
      { text: 'Tell the two customers that {dropped} is postponed', assignee: 0, dueInDays: 7 },
      { text: 'Write the staffing request for the {betShort} team', assignee: 2, dueInDays: 10 },
    ],
    variants: [
      {
        period: 'the second half of the year',
        bet: 'AI meeting summaries',
        betShort: 'AI summaries',
        dropped: 'offline mode',
        droppedCap: 'Offline mode',
      },
      {
        period: 'the first quarter',
        bet: 'the enterprise admin console',
        betShort: 'admin console',
        dropped: 'the public API v2',
        droppedCap: 'The public API v2',
      },
    ],
  },
  {
    key: 'security-review',
    speakers: 3,
    tags: ['Security', 'Engineering'],
    title: 'Security review: {systemShort}',
    summary:
      'Pre-launch security review of {system}. One high finding: {findingShort}; the fix is to {fix}. Two medium ' +
      'findings: request bodies in logs (to be redacted now) and per-IP instead of per-key rate limiting (next ' +
      'release). Sign-off after a re-test next week.',
    turns: [
      [0, 'This is the security review for {system} before it goes live.'],
      [1, "I've read the design doc and the code. Overall it's in good shape, but I have one high finding."],
      [1, '{finding}'],
      [2, 'Is that exploitable in practice?'],
      [1, "Yes, with some effort. I wouldn't ship without fixing it."],
      [0, 'What is the fix?'],
      [1, "We should {fix}. It's not a big change."],
      [2, 'I can do that in two days. Anything else?'],
      [
        1,
        'Two medium findings: the logs include full request bodies, which may contain personal data, and the rate limit is per IP instead of per API key.',
      ],
      [0, 'The logging one we should fix now. The rate limit can follow in the next release.'],
      [2, "Agreed. I'll redact the bodies in the logs together with the main fix."],
      [1, "Then I'll re-test next week and sign off if everything is fixed."],
    ],
    highlights: [2, 6],
    actions: [
      { text: '{fixAction}', assignee: 2, dueInDays: 3 },
      { text: 'Redact request bodies from the {systemShort} logs', assignee: 2, dueInDays: 3 },
      { text: 'Re-test the {systemShort} and sign off', assignee: 1, dueInDays: 8 },
      { text: 'Switch the {systemShort} rate limit to per API key', dueInDays: 30 },
    ],
    variants: [
      {
        system: 'the new file upload service',
        systemShort: 'file upload service',
        finding:
          'Uploaded files are served from the same domain as the app, so a crafted SVG file could run scripts in the user’s session.',
        findingShort: 'uploads served from the app domain allow script execution through SVG files',
        fix: 'serve uploads from a separate domain with a strict content security policy',
        fixAction: 'Serve uploads from a separate domain with a strict CSP',
      },
      {
        system: 'the webhook signing changes',
        systemShort: 'webhook signing',
        finding:
          'The signature comparison is not constant-time, and there is no timestamp in the signed payload, so old deliveries can be replayed.',
        findingShort: 'a non-constant-time signature comparison and no replay protection',
        fix: 'switch to a constant-time comparison and sign a timestamp to prevent replays',
        fixAction: 'Use a constant-time signature comparison and sign a timestamp',
      },
    ],
  },
  {
    key: 'team-weekly',
    speakers: 4,
    tags: ['Weekly', 'Engineering'],
    title: '{team} team weekly',
    summary:
      '{team} team weekly: {shippedShort} shipped; {blockedShort} is blocked and gets escalated. The test suite ' +
      'now takes 25 minutes, so the integration tests will run in parallel, and the nearly full staging database ' +
      'gets cleaned up. Planning proposals are due Monday for the quarterly planning on Tuesday.',
    turns: [
      [0, "Morning, everyone, quick {team} team weekly. Let's go round: what shipped, what's blocked."],
      [1, 'I shipped {shipped}. Next up is {next}.'],
      [2, "I'm blocked on {blocked}. I've asked twice but haven't heard back."],
      [0, "I'll escalate that today; it has been blocking you for too long."],
      [
        3,
        'I finished the on-call handover docs. I also noticed our test suite takes twenty-five minutes now, which slows everyone down.',
      ],
      [
        1,
        'Most of that is the integration tests; they run one after another. We could run them in parallel.',
      ],
      [3, 'I can try that this week, it should be mostly configuration.'],
      [
        0,
        'Good. Reminder: quarterly planning is next Tuesday, so please add your proposals to the doc by Monday.',
      ],
      [2, 'Is it okay if I take Friday off? I have a family event.'],
      [0, 'Of course, just put it in the team calendar.'],
      [1, 'One more thing: the staging database is almost full. We should clean up old test data.'],
      [0, '{D}, can you take that together with the test parallelisation?'],
      [3, "Yes, I'll do both."],
    ],
    highlights: [2, 4],
    actions: [
      { text: 'Escalate the {blockedShort} blocker', assignee: 0, dueInDays: 1 },
      { text: 'Run the integration tests in parallel in CI', assignee: 3, dueInDays: 7 },
      { text: 'Clean up old test data in the staging database', assignee: 3, dueInDays: 7 },
      { text: 'Add quarterly planning proposals to the planning doc', dueInDays: 6 },
    ],
    variants: [
      {
        team: 'Platform',
        shipped: 'the new retry logic for background jobs',
        shippedShort: 'retry logic for background jobs',
        next: 'the migration to the new queue',
        blocked: 'access to the production logs of the billing service',
        blockedShort: 'billing log access',
      },
      {
        team: 'Mobile',
        shipped: 'the offline cache for the note list',
        shippedShort: 'the offline note-list cache',
        next: 'push notifications for shared notes',
        blocked: 'the App Store review for the 3.2 release',
        blockedShort: 'App Store review',
      },
    ],
  },
  {
    key: 'vendor-negotiation',
    speakers: 3,
    tags: ['Finance', 'Vendors'],
    title: 'Renewal prep: {vendor}',
    summary:
      '{vendor} proposed a {increase}% price increase at renewal. The ask: flat pricing for a two-year ' +
      'commitment, a volume discount above the current tier and better support terms, with {alt} (about 30% ' +
      'cheaper, six weeks to migrate) as leverage. Walk-away point: anything above 8%.',
    turns: [
      [
        0,
        "Let's prepare for the {vendor} renewal call. They've proposed a {increase} percent price increase.",
      ],
      [1, "That's well above inflation. Our usage grew, but not because of anything they did."],
      [
        2,
        'I compared two alternatives. {alt} is about thirty percent cheaper for the same volume, but migrating would take roughly six weeks.',
      ],
      [0, "Migration is a real cost. I'd rather use the alternative as leverage than actually switch."],
      [
        1,
        'Our ask should be flat pricing for a two-year commitment, and a volume discount above the current tier.',
      ],
      [
        2,
        'We should also ask for better support terms. Response times were poor during the outage in the spring.',
      ],
      [0, "What's our walk-away point?"],
      [1, 'Anything above eight percent, and we start planning the migration seriously.'],
      [
        2,
        'Legal also wants the data-processing addendum updated to the new template before we sign anything.',
      ],
      [0, "Okay. I'll lead the call, {B} handles the numbers, {C} covers support and legal."],
      [1, "I'll prepare a one-page comparison with the alternative's quote."],
      [0, "Good. And let's make sure the contract end date is in the finance calendar this time."],
    ],
    highlights: [0, 7],
    actions: [
      { text: "Prepare a one-page comparison with {alt}'s quote", assignee: 1, dueInDays: 2 },
      { text: 'Send the updated data-processing addendum to {vendor}', assignee: 2, dueInDays: 5 },
      { text: 'Add the {vendor} contract end date to the finance calendar', assignee: 0 },
    ],
    variants: [
      { vendor: 'CloudScale', increase: '22', alt: 'Nimbus Hosting' },
      { vendor: 'Transcribo', increase: '15', alt: 'VoxLab' },
    ],
  },
  {
    key: 'user-research',
    speakers: 4,
    tags: ['Research', 'Product'],
    title: 'User interviews readout: {segment}',
    summary:
      'Readout of nine interviews with {segment}. Main theme: {theme1Short}, raised unprompted in six of nine ' +
      'interviews. Second theme: {theme2Short}, which matches objections sales hears in demos. A short survey ' +
      'will validate the size of both; consented interview clips go to the sales team.',
    turns: [
      [0, "I'll present the findings from last week's interviews with {segment}. We talked to nine people."],
      [0, 'The strongest theme: {theme1}'],
      [1, 'Did that come up unprompted, or did we ask about it?'],
      [
        0,
        'Unprompted, in six of the nine interviews. One person called it the main reason they almost cancelled.',
      ],
      [2, 'The second theme: {theme2}'],
      [3, "That matches what sales hears. It's a common objection in demos."],
      [1, 'How confident are we, with only nine interviews?'],
      [
        0,
        "Confident about the direction, not about the size. I'd validate it with a short survey to the whole segment.",
      ],
      [2, 'I can set up the survey. Five questions; it should take two minutes.'],
      [
        3,
        'And can we get interview clips for the sales team? Hearing a customer say it is more convincing than slides.',
      ],
      [0, 'Yes, with consent. Seven of the nine agreed to share their recordings internally.'],
      [1, "Let's make {theme1Short} the first topic at the next roadmap review."],
      [0, "Agreed. I'll write up the full report by Thursday."],
    ],
    highlights: [1, 4, 10],
    actions: [
      { text: 'Write the full research report on {segment}', assignee: 0, dueInDays: 3 },
      { text: 'Send the validation survey to {segment}', assignee: 2, dueInDays: 7 },
      { text: 'Cut consented interview clips for the sales team', assignee: 3, dueInDays: 10 },
    ],
    variants: [
      {
        segment: 'small agencies',
        theme1:
          'they lose track of what was promised to clients across many short calls, and nobody owns the follow-ups.',
        theme1Short: 'losing track of client follow-ups',
        theme2: 'per-seat pricing feels expensive because freelancers join projects only for a few weeks.',
        theme2Short: 'per-seat pricing for short-term freelancers',
      },
      {
        segment: 'enterprise IT admins',
        theme1:
          'they need audit logs and data retention controls before they can roll the product out widely.',
        theme1Short: 'audit logs and retention controls',
        theme2: 'provisioning users by hand does not scale; they expect SCIM with their identity provider.',
        theme2Short: 'SCIM user provisioning',
      },
    ],
  },
];
