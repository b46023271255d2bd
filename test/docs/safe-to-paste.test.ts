import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt, runCli } from '../helpers/cli-process.js';
import { shellCommands } from './shell-commands.js';

// What a partner pastes from the README, docs/ or a --help runs as written from any folder of a project that
// installed the package, and never fetches from a registry: the package is not on the npm registry, so `npx` without
// `--no-install` outside such a folder would download and run whatever owns the name there. A command is started
// through `npx --no-install` or by the installed file's path, never bare (`card-sandbox` is on no PATH). The
// walk-throughs' keyed writes carry an Idempotency-Key, as a partner's integration must (readiness checks it).
// (scripts/pack-smoke.sh runs `npx --no-install card-sandbox` from a subfolder of a partner's project with no
// registry reachable, and outside it, where it must refuse.)

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

const PAGES = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))].map((path) => ({
  name: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));

interface Block {
  lang: string;
  body: string;
}

function fencedBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** The code of a page: its fenced blocks and its inline code spans (prose may name npx; code is what is pasted). */
function codeOf(markdown: string): string[] {
  const blocks = fencedBlocks(markdown).map((b) => b.body);
  const prose = markdown.replace(/^```[\w-]*\n[\s\S]*?^```$/gm, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...spans];
}

/** Each `npx` that is followed by something other than `--no-install`, with its line. */
function fetchingNpx(text: string): string[] {
  return text.split('\n').filter((line) => /\bnpx\s+(?!--no-install\b)\S/.test(line));
}

const isShell = (b: Block) => b.lang === 'sh' || b.lang === 'bash';

describe('docs safe to paste', () => {
  it.each(PAGES.map((p) => [p.name, p] as const))(
    '%s: every npx in its code runs only an installed command (--no-install)',
    (_name, page) => {
      expect(codeOf(page.text).flatMap(fetchingNpx)).toEqual([]);
    },
  );

  it.each(PAGES.map((p) => [p.name, p] as const))(
    '%s: no shell command starts card-sandbox bare (it is on no PATH: npx --no-install or the installed path)',
    (_name, page) => {
      const bare = fencedBlocks(page.text)
        .filter(isShell)
        .flatMap((b) => shellCommands(b.body))
        // Leading variable assignments (`SANDBOX_API_KEY= card-sandbox ...`) are part of the command.
        .filter((c) => /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*card-sandbox\b/.test(c) || /[|&;]\s*card-sandbox\b/.test(c));
      expect(bare).toEqual([]);
    },
  );

  it('the rule bites: a planted npx without --no-install, and a bare command, are found', () => {
    const planted = '```sh\nnpx card-sandbox serve\nSANDBOX_PORT=1 card-sandbox serve\n```\nRun `npx card-sandbox`.\n';
    expect(codeOf(planted).flatMap(fetchingNpx)).toEqual(['npx card-sandbox serve', 'npx card-sandbox']);
    const bare = fencedBlocks(planted)
      .filter(isShell)
      .flatMap((b) => shellCommands(b.body))
      .filter((c) => /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*card-sandbox\b/.test(c));
    expect(bare).toEqual(['SANDBOX_PORT=1 card-sandbox serve']);
    expect(fetchingNpx('npx --no-install card-sandbox serve\nrather than `npx`')).toEqual([]);
  });
});

describe('every --help safe to paste', () => {
  beforeAll(() => ensureBuilt());

  it('names npx only with --no-install, in the help of every command and subcommand', async () => {
    const top = (await runCli(['--help'])).stdout;
    const commands = commandList(top);
    expect(commands).toContain('serve');
    const helps: [string, string][] = [['(no command)', top]];
    for (const command of commands) {
      const help = (await runCli([command, '--help'])).stdout;
      helps.push([command, help]);
      for (const sub of commandList(help))
        helps.push([`${command} ${sub}`, (await runCli([command, sub, '--help'])).stdout]);
    }
    expect(helps.length).toBeGreaterThan(commands.length);
    expect(helps.flatMap(([name, help]) => fetchingNpx(help).map((l) => `${name}: ${l}`))).toEqual([]);
    expect(top).toMatch(/npx --no-install card-sandbox/);
  });
});

/** The names under a help's `commands:` heading. */
function commandList(help: string): string[] {
  const section = /\ncommands:\n((?: {2}\S.*\n)+)/.exec(help)?.[1] ?? '';
  return section
    .split('\n')
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/)[0]!);
}

/** The keyed writes of a page's shell and scenario examples sent without an Idempotency-Key. */
function keylessWrites(markdown: string): string[] {
  const missing: string[] = [];
  for (const block of fencedBlocks(markdown)) {
    if (isShell(block)) {
      for (const c of shellCommands(block.body)) {
        // A keyed write called (a URL, or the walk-throughs' `call PATH`), not a fault rule naming one as its `path`.
        const calls =
          /(?:\bcall\s+|https?:\/\/[^\s'"]*|\$SB)\/v1\/card\/(?:create|deposit|freeze|unfreeze|cancel)\b/.test(c);
        if (calls && !/Idempotency-Key/i.test(c)) missing.push(c);
      }
    }
    if (block.lang === 'yaml') missing.push(...keylessSteps(block.body));
  }
  return missing;
}

/**
 * The keyed writes of a scenario (a file, or a page's example) sent without an Idempotency-Key; a step that expects
 * 4210 is about the missing key itself.
 */
function keylessSteps(yaml: string): string[] {
  return yaml
    .split(/\n\s*- /)
    .filter((step) => /request:\s*POST\s+\/v1\/card\/(?:create|deposit|freeze|unfreeze|cancel)\b/.test(step))
    .filter((step) => !/Idempotency-Key/.test(step) && !/code:\s*4210\b/.test(step))
    .map((step) => step.trim());
}

const SCENARIOS = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => ({ name: `scenarios/${f}`, text: readFileSync(join(ROOT, 'scenarios', f), 'utf8') }));

describe('walk-throughs and the scenario library write with an Idempotency-Key', () => {
  it.each(PAGES.map((p) => [p.name, p] as const))(
    '%s: every keyed write in its shell and scenario examples sends an Idempotency-Key',
    (_name, page) => {
      expect(keylessWrites(page.text)).toEqual([]);
    },
  );

  it.each(SCENARIOS.map((f) => [f.name, f] as const))(
    '%s: every keyed write sends an Idempotency-Key (but a step about its absence, 4210)',
    (_name, file) => {
      expect(keylessSteps(file.text)).toEqual([]);
    },
  );

  it('the rule bites: keyless writes in a shell block and a scenario step are found, a fault rule is not', () => {
    const planted = [
      '```sh',
      "call /v1/card/create '{}'",
      'call /sandbox/v1/faults \'{"rules":[{"path":"/v1/card/deposit"}]}\'',
      "curl -s http://127.0.0.1:8080/v1/card/freeze -H 'Idempotency-Key: k' -d '{}'",
      '```',
      '```yaml',
      'steps:',
      '  - request: POST /v1/card/deposit',
      '    body: {}',
      '```',
      '',
    ].join('\n');
    expect(keylessWrites(planted)).toEqual([
      "call /v1/card/create '{}'",
      'request: POST /v1/card/deposit\n    body: {}',
    ]);
    const about4210 = 'steps:\n  - request: POST /v1/card/freeze\n    expect: { status: 400, body: { code: 4210 } }\n';
    expect(keylessSteps(about4210)).toEqual([]);
  });
});
