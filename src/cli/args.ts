import { parseArgs } from 'node:util';

// One declaration per command both parses its argv (node:util parseArgs, which ignores the extra `arg` and `help`
// keys) and prints its usage, so the help can never drift from what is accepted.

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in the usage (`URL`, `KEY`, `N`). */
  arg?: string;
  help: string;
}

export interface CommandSpec {
  /** `card-sandbox listen`, `card-sandbox webhook send`. */
  command: string;
  /** What follows the command on the usage line: `--base-url URL --api-key KEY [--forward-to URL]`. */
  synopsis: string;
  /** One sentence under the usage line. */
  summary?: string;
  options: Record<string, OptionSpec>;
  allowPositionals?: boolean;
  /** Extra text after the options (exit codes, examples). */
  footer?: string;
}

type Value<O extends OptionSpec> = O['type'] extends 'boolean'
  ? boolean | undefined
  : O['multiple'] extends true
    ? string[] | undefined
    : string | undefined;

type Values<S extends CommandSpec> = { -readonly [K in keyof S['options']]: Value<S['options'][K]> };

export type Parsed<S extends CommandSpec> =
  { ok: true; values: Values<S>; positionals: string[] } | { ok: false; exitCode: number };

export interface Output {
  write(text: string): unknown;
}

const HELP: OptionSpec = { type: 'boolean', short: 'h', help: 'show this help' };

/** The usage text: the synopsis, the summary, then one aligned line per option. */
function usage(spec: CommandSpec): string {
  const rows = Object.entries({ ...spec.options, help: HELP }).map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : '    '}--${name}${o.arg ? ` ${o.arg}` : ''}`,
    o.help + (o.multiple ? ' (repeatable)' : ''),
  ]);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  const lines = [`usage: ${spec.command} ${spec.synopsis}`.trimEnd()];
  if (spec.summary) lines.push('', spec.summary);
  lines.push('', 'options:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`));
  if (spec.footer) lines.push('', spec.footer.trimEnd());
  return `${lines.join('\n')}\n`;
}

/**
 * Parses argv against the spec. `--help`/`-h` prints the usage to stdout (exit 0); an unknown option, a missing
 * value or an unexpected positional prints the problem and the usage to stderr (exit 2).
 */
export function parseCommand<S extends CommandSpec>(
  spec: S,
  argv: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
): Parsed<S> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: spec.allowPositionals ?? false,
      options: { ...spec.options, help: HELP },
    });
  } catch (e) {
    // A help request wins over a malformed rest of the line, as in most CLIs.
    if (argv.includes('--help') || argv.includes('-h')) {
      out.write(usage(spec));
      return { ok: false, exitCode: 0 };
    }
    return usageError(spec, (e as Error).message, err);
  }
  if (parsed.values.help) {
    out.write(usage(spec));
    return { ok: false, exitCode: 0 };
  }
  return { ok: true, values: parsed.values as Values<S>, positionals: parsed.positionals };
}

/** Prints `<command>: <problem>` and the usage on stderr; returns the usage exit status, 2. */
export function usageError(
  spec: CommandSpec,
  problem: string,
  err: Output = process.stderr,
): { ok: false; exitCode: 2 } {
  err.write(`${spec.command}: ${problem}\n\n${usage(spec)}`);
  return { ok: false, exitCode: 2 };
}

/** A sub-command group (`scenario run`, `webhook send`, `logs tail`): dispatches on the first word. */
export async function runGroup(
  group: {
    command: string;
    summary: string;
    subcommands: Record<string, { summary: string; run(argv: string[]): Promise<number> }>;
  },
  argv: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
): Promise<number> {
  const text = () => {
    const names = Object.keys(group.subcommands);
    const width = Math.max(...names.map((n) => n.length)) + 2;
    return (
      `usage: ${group.command} ${names.length === 1 ? names[0] : `<${names.join('|')}>`} [options]\n\n${group.summary}\n\ncommands:\n` +
      names.map((n) => `  ${n.padEnd(width)}${group.subcommands[n]!.summary}`).join('\n') +
      `\n\nEach command answers --help.\n`
    );
  };
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    out.write(text());
    return 0;
  }
  const found = sub === undefined ? undefined : group.subcommands[sub];
  if (!found) {
    err.write(
      `${group.command}: ${sub === undefined ? 'a command is required' : `unknown command ${JSON.stringify(sub)}`}\n\n${text()}`,
    );
    return 2;
  }
  return found.run(rest);
}
