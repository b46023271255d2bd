import { Redactor } from '../redaction/redactor.js';

// Every line a partner-side command writes (stdout and stderr) passes the redactor, whatever wrote it: a receiver URL
// with a card number in its path or a key in its query, a sandbox's error message echoing a key, a value a command
// prints from an answer. It knows the command's own secrets (its flags and their environment variables) by value,
// and every shape and name redaction finds. What a command exists to show once (the webhook secret `listen` learns)
// goes through `showSecret`, and only that.

/** The flags and environment variables whose values are a command's own secrets. */
const SECRET_FLAGS = ['--api-key', '--secret', '--admin-token'];
const SECRET_VARIABLES = ['SANDBOX_API_KEY', 'SANDBOX_ADMIN_TOKEN', 'SANDBOX_WEBHOOK_SECRET'];

type Write = typeof process.stdout.write;
let unredacted: Write | undefined;

/** The values given to a command that must never be printed. */
function commandSecrets(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  argv.forEach((arg, i) => {
    for (const flag of SECRET_FLAGS) {
      if (arg === flag && argv[i + 1] !== undefined) found.push(argv[i + 1]!);
      else if (arg.startsWith(`${flag}=`)) found.push(arg.slice(flag.length + 1));
    }
  });
  for (const name of SECRET_VARIABLES) if (env[name]) found.push(env[name]!);
  return found;
}

/** From now on, whatever this process writes to stdout and stderr is redacted first. */
export function redactOutput(redactor: Redactor): void {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as Write;
    if (stream === process.stdout) unredacted = write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
      return (write as (...args: unknown[]) => boolean)(text === undefined ? chunk : redactor.text(text), ...rest);
    }) as Write;
  }
}

/** Writes a line that shows a secret on purpose (shown once, as the command's documentation says). */
export function showSecret(line: string): void {
  (unredacted ?? process.stdout.write.bind(process.stdout))(`${line}\n`);
}

/** The redactor of a command's outputs. */
export function commandRedactor(argv: readonly string[], env: NodeJS.ProcessEnv): Redactor {
  return new Redactor(commandSecrets(argv, env));
}
