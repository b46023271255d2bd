import type { OptionSpec } from './args.js';

// `--base-url URL --api-key KEY`, the target every partner-side command talks to, declared once: the options (with
// their help), the environment fallbacks (SANDBOX_BASE_URL, SANDBOX_API_KEY; a flag beats the environment, an empty
// variable counts as unset) and the usage checks. A command spreads `targetOptions()` into its spec's options and
// calls `requireTarget(values)` (or `readTarget` when the target is optional, as in `listen --secret`).

export interface Target {
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey: string;
}

/** The parsed values of the two options, as `parseCommand` returns them. */
export interface TargetValues {
  'base-url'?: string;
  'api-key'?: string;
}

/** The two option declarations; `what` words the help (what the URL and the key stand for in this command). */
export function targetOptions(what: { baseUrl?: string; apiKey?: string } = {}) {
  return {
    'base-url': {
      type: 'string',
      arg: 'URL',
      help: `${what.baseUrl ?? 'the sandbox'} (env SANDBOX_BASE_URL)`,
    },
    'api-key': {
      type: 'string',
      arg: 'KEY',
      help: `${what.apiKey ?? 'the account'} (env SANDBOX_API_KEY)`,
    },
  } as const satisfies Record<string, OptionSpec>;
}

/** The flags, else the environment; either may be missing. */
export function readTarget(values: TargetValues, env: NodeJS.ProcessEnv = process.env): Partial<Target> {
  const baseUrl = values['base-url'] ?? (env.SANDBOX_BASE_URL || undefined);
  const apiKey = values['api-key'] ?? (env.SANDBOX_API_KEY || undefined);
  return { baseUrl: baseUrl?.replace(/\/+$/, ''), apiKey };
}

/** Both, checked: the target, or the usage problem to print (exit status 2). */
export function requireTarget(
  values: TargetValues,
  env: NodeJS.ProcessEnv = process.env,
): Target | { problem: string } {
  const { baseUrl, apiKey } = readTarget(values, env);
  if (!baseUrl) return { problem: '--base-url URL (or SANDBOX_BASE_URL) is required' };
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl))
    return { problem: '--base-url must be an http(s) URL' };
  if (!apiKey) return { problem: '--api-key KEY (or SANDBOX_API_KEY) is required' };
  return { baseUrl, apiKey };
}
