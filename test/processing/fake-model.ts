import { type ChatRequest, chatCompletion, countPromptTokens, type Reply } from './openai-server.ts';

/**
 * The chat answers of a small local model behind one of the servers self-hosters run, for startOpenAiServer's
 * onChat: a context window it enforces the way that server does, the answer formats it takes, and notes it
 * really derives from the lines it read (so a prompt it cut shows in the note). Its "model" finds a task in
 * every line saying "I'll …", a highlight in every line starting "Important:", and merges tasks of the same
 * wording.
 */
export interface ModelProfile {
  /** The window, counted by countPromptTokens. */
  contextTokens: number;
  /**
   * What the server does with a longer prompt: llama.cpp's server and vLLM and OpenAI answer 400 (each with its
   * own body); Ollama keeps the system message and the end of the prompt and says nothing.
   */
  overflow: 'llamacpp' | 'vllm' | 'openai' | 'ollama';
  /** `refused`: a 400 for `json_schema` (and for `json_object` too with `formats: 'none'`). */
  formats?: 'all' | 'no-json-schema' | 'none';
  /** How the model dresses its JSON. */
  wrap?: 'bare' | 'prose' | 'fence';
}

export function overflowBody(profile: ModelProfile, promptTokens: number): unknown {
  const n = profile.contextTokens;
  switch (profile.overflow) {
    case 'llamacpp':
      return {
        error: {
          code: 400,
          message: `request (${promptTokens} tokens) exceeds the available context size (${n} tokens)`,
          type: 'exceed_context_size_error',
          n_prompt_tokens: promptTokens,
          n_ctx: n,
        },
      };
    case 'vllm':
      return {
        object: 'error',
        message: `This model's maximum context length is ${n} tokens. However, you requested ${promptTokens} tokens (${promptTokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      };
    default:
      return {
        error: {
          message: `This model's maximum context length is ${n} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      };
  }
}

export function fakeModel(profile: ModelProfile): (req: ChatRequest) => Reply {
  return (req) => {
    const format = req.body.response_format?.type as string | undefined;
    const formats = profile.formats ?? 'all';
    if ((format === 'json_schema' && formats !== 'all') || (format === 'json_object' && formats === 'none')) {
      return {
        status: 400,
        json: {
          error: { message: `Unsupported response_format type: ${format}`, type: 'invalid_request_error' },
        },
      };
    }
    let messages = req.body.messages as { role: string; content: string }[];
    let tokens = countPromptTokens(req.body);
    if (tokens > profile.contextTokens) {
      if (profile.overflow !== 'ollama') return { status: 400, json: overflowBody(profile, tokens) };
      messages = truncateLikeOllama(messages, profile.contextTokens);
      tokens = countPromptTokens({ messages });
    }
    const system = messages[0]?.content ?? '';
    const user = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const answer = JSON.stringify(system.startsWith('You merge') ? merge(user) : analyse(user));
    const content =
      profile.wrap === 'prose'
        ? `Sure! Here are the notes you asked for:\n${answer}\nLet me know if you need anything else.`
        : profile.wrap === 'fence'
          ? `\`\`\`json\n${answer}\n\`\`\``
          : answer;
    return { json: chatCompletion(content, 'stop', tokens) };
  };
}

/** Ollama's num_ctx: the system message, then as many of the prompt's last lines as fit. */
function truncateLikeOllama(messages: { role: string; content: string }[], window: number) {
  const [system, ...rest] = messages;
  const user = rest
    .map((m) => m.content)
    .join('\n')
    .split('\n');
  const kept: string[] = [];
  let tokens = countPromptTokens({ messages: [system] }) + 4;
  for (let i = user.length - 1; i >= 0; i--) {
    const cost = countPromptTokens({ messages: [{ content: user[i] }] });
    if (tokens + cost > window) break;
    tokens += cost;
    kept.unshift(user[i]!);
  }
  return [system!, { role: 'user', content: kept.join('\n') }];
}

const LINE = /^\[(\d+)\] ([^:]+): (.*)$/;

function analyse(user: string) {
  const lines = user.split('\n').flatMap((l) => {
    const m = LINE.exec(l);
    return m ? [{ n: Number(m[1]), speaker: m[2]!, text: m[3]! }] : [];
  });
  const first = lines[0];
  return {
    title: first ? `Meeting from line ${first.n}` : 'Meeting',
    summary: `The meeting covered ${lines.length} lines.`,
    action_items: lines.flatMap((l) => {
      const m = /I'll ([^.]+)\./.exec(l.text);
      return m ? [{ text: capitalise(m[1]!), assignee: l.speaker, due: null }] : [];
    }),
    highlights: lines
      .filter((l) => l.text.startsWith('Important:'))
      .map((l) => ({ segment: l.n, text: l.text.slice('Important:'.length).trim() })),
  };
}

function merge(user: string) {
  const groups = new Map<string, { text: string; assignee: string | null; sources: number[] }>();
  let parts = 0;
  for (const line of user.split('\n')) {
    if (line.startsWith('Part ')) parts++;
    const m = /^#(\d+) (.+?)(?: \(assignee: ([^)]+)\))?(?: \(due: [^)]+\))?$/.exec(line);
    if (!m) continue;
    const key = m[2]!.toLowerCase();
    const group = groups.get(key) ?? { text: m[2]!, assignee: m[3] ?? null, sources: [] };
    group.sources.push(Number(m[1]));
    groups.set(key, group);
  }
  return {
    title: `Meeting in ${parts} parts`,
    summary: `The meeting was merged from ${parts} parts.`,
    action_items: [...groups.values()].map((g) => ({ ...g, due: null })),
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
