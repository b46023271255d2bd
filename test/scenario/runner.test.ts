import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runScenarioCommand } from '../../src/cli/scenario.js';
import { loadScenario } from '../../src/scenario/load.js';
import { consoleReport, junitReport, tapReport } from '../../src/scenario/report.js';
import { embeddedTarget } from '../../src/cli/embedded-target.js';
import { loadAll, runScenarios } from '../../src/scenario/runner.js';
import { ScenarioFileError } from '../../src/scenario/types.js';

let dir: string;
const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scenario-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function runFile(text: string, name = 'case.yaml') {
  const file = write(name, text);
  const loaded = await loadAll([file], dir);
  if (!loaded.ok) throw loaded.errors[0];
  return (await runScenarios(loaded.scenarios, { embedded: () => embeddedTarget() }))[0];
}

describe('scenario format', () => {
  it('captures with JSONPath and substitutes {{var}} keeping the value type', async () => {
    const r = await runFile(`
name: capture
account: { balance: 100, depositFeeRate: "0" }
vars: { amount: 20 }
steps:
  - request: POST /v1/card/create
    body: { amount: "{{amount}}", currency: USDT }
    capture: { card: $.cardId }
  - request: POST /v1/card/asset
    body: { cardId: "{{card}}" }
    expect: { body: { availableAmount: { $decimal: "20.00" } } }
  - request: POST /v1/card/list
    expect: { body: { cardList: [{ cardId: "{{card}}", availableBalance: 20, binId: { $type: string }, alias: { $absent: true } }] } }
`);
    expect(r.steps.map((s) => s.failure?.message)).toEqual([undefined, undefined, undefined]);
    expect(r.ok).toBe(true);
  });

  it('runs included files first, with their vars', async () => {
    write(
      'setup.yaml',
      `name: setup\nvars: { amount: 30 }\nsteps:\n  - sandbox: wallet/seed\n    body: { amount: 500 }\n`,
    );
    const r = await runFile(`
name: with include
include: [setup.yaml]
account: { depositFeeRate: "0" }
steps:
  - request: POST /v1/card/create
    body: { amount: "{{amount}}", currency: USDT }
  - request: POST /v1/wallet/assetList
    expect: { body: { assetList: [{ availableAmount: "470" }, {}] } }
`);
    expect(r.steps.map((s) => `${s.file.split('/').pop()}:${s.line}`)).toEqual([
      'setup.yaml:4',
      'case.yaml:6',
      'case.yaml:8',
    ]);
    expect(r.ok).toBe(true);
  });

  it('{{uuid}} is fresh at each use: two keys, two executions, no replay header', async () => {
    const r = await runFile(`
name: uuid
account: { balance: 100 }
vars: { key: "k-1" }
steps:
  - request: POST /v1/card/create
    headers: { Idempotency-Key: "{{uuid}}" }
    body: { amount: 10, currency: USDT }
  - request: POST /v1/card/create
    headers: { Idempotency-Key: "{{uuid}}" }
    body: { amount: 10, currency: USDT }
    expect: { headers: { Idempotent-Replayed: { $absent: true } } }
`);
    expect(r.ok).toBe(true);
  });
});

describe('whileHeld: steps run while a fault holds a request, decided by the sandbox state', () => {
  const heldFile = (hold: boolean, retryStatus: number) => `
name: while held
account: { balance: 100, depositFeeRate: "0" }
vars: { key: "{{uuid}}" }
steps:
  - request: POST /v1/card/create
    body: { amount: 10, currency: USDT }
    capture: { card: $.cardId }
  - sandbox: faults
    body: { rules: [{ path: /v1/card/freeze, ${hold ? 'hold: true' : 'respond: { httpStatus: 503, code: 9999 }'} }] }
  - name: the held freeze
    request: POST /v1/card/freeze
    headers: { Idempotency-Key: "{{key}}" }
    body: { cardId: "{{card}}" }
    expect: { status: ${hold ? 200 : 503} }
    whileHeld:
      - name: the retry
        request: POST /v1/card/freeze
        headers: { Idempotency-Key: "{{key}}" }
        body: { cardId: "{{card}}" }
        expect: { status: ${retryStatus} }
      - sandbox: faults/held
        expect: { body: { held: 1 } }
  - name: released, then nothing is held
    sandbox: faults/held
    expect: { body: { held: 0 } }
  - request: POST /v1/card/detail
    body: { cardId: "{{card}}" }
    expect: { body: { cardStatus: ${hold ? 'FROZEN' : 'ACTIVE'} } }
`;

  it('sends the request, runs the steps once the sandbox holds it (a retry of its key is 4212), then releases it', async () => {
    const r = await runFile(heldFile(true, 409));
    expect(r.steps.map((s) => s.failure?.message)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('a failing step inside still releases the request, and the step names where it failed', async () => {
    const r = await runFile(heldFile(true, 200));
    expect(r.steps[2]!.failure?.message).toMatch(/^whileHeld\[0\] \(the retry\): POST \/v1\/card\/freeze answered 409/);
    expect(r.ok).toBe(false);
  });

  it('a request no fault holds fails the step: whileHeld needs a hold rule on its path', async () => {
    const r = await runFile(heldFile(false, 409));
    expect(r.steps[2]!.failure?.message).toMatch(/was answered before a fault held it: whileHeld needs a hold rule/);
  });

  it('a malformed step inside whileHeld is told at its own line', async () => {
    const file = write(
      'nested.yaml',
      [
        'name: nested',
        'steps:',
        '  - request: POST /v1/card/list',
        '    whileHeld:',
        '      - sandbox: faults/held',
        '        bdy: {}',
        '',
      ].join('\n'),
    );
    const err = (await loadScenario(file, dir).catch((e: unknown) => e)) as ScenarioFileError;
    expect(err.problems).toEqual([{ line: 6, detail: 'unknown field "bdy": did you mean "body"?' }]);
  });
});

describe('failure output', () => {
  it('a failing step reports its file and line, the request as curl (key redacted) and a diff; later steps are skipped', async () => {
    const r = await runFile(`name: failing
account: { balance: 100 }
steps:
  - request: POST /v1/card/list
  - request: POST /v1/card/create
    body: { amount: 50, currency: USDT }
    expect:
      body: { cardStatus: FROZEN }
  - request: POST /v1/card/list
`);
    expect(r.ok).toBe(false);
    const [, failed, skipped] = r.steps;
    expect(failed).toMatchObject({ ok: false, line: 5 });
    expect(failed.file).toMatch(/case\.yaml$/);
    expect(failed.failure!.curl).toContain("curl -sS -X POST 'http://127.0.0.1:");
    expect(failed.failure!.curl).toContain('X-API-KEY: $SANDBOX_API_KEY');
    expect(failed.failure!.curl).toContain(`--data '{"amount":50,"currency":"USDT"}'`);
    expect(failed.failure!.diff).toEqual([{ path: '$.cardStatus', expected: '"FROZEN"', actual: '"ACTIVE"' }]);
    expect(skipped.skipped).toBe(true);
    const text = consoleReport([r], 1);
    expect(text).toMatch(/case\.yaml:5 POST \/v1\/card\/create/);
    expect(text).toContain('- expected: "FROZEN"');
    expect(text).toContain('+ actual:   "ACTIVE"');
    expect(text).not.toMatch(/sk_|X-API-KEY: [A-Za-z0-9]{20}/);
  });

  it('JUnit has a testcase per step with the failure; TAP has a point per file', async () => {
    const r = await runFile(`name: junit\nsteps:\n  - request: POST /v1/card/detail\n    body: { cardId: "0" }\n`);
    const junit = junitReport([r]);
    expect(junit).toContain('<testsuite name="');
    expect(junit).toContain('failures="1"');
    expect(junit).toContain('<failure message="POST /v1/card/detail answered 400, not as expected">');
    expect(tapReport([r])).toMatch(/^TAP version 13\n1\.\.1\nnot ok 1 - .*case\.yaml: junit\n {2}---\n/);
  });

  it('the CLI exits 1 on any failure and writes the JUnit file', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const ok = write('ok.yaml', 'name: ok\nsteps:\n  - request: POST /v1/card/list\n');
      const bad = write(
        'bad.yaml',
        'name: bad\nsteps:\n  - request: POST /v1/card/list\n    expect: { status: 201 }\n',
      );
      expect(await runScenarioCommand(['run', ok])).toBe(0);
      expect(await runScenarioCommand(['run', ok, bad, '--junit', join(dir, 'r.xml')])).toBe(1);
      expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toContain('tests="1" failures="1"');
    } finally {
      out.mockRestore();
    }
  });
});

describe('malformed files are reported with file and line before anything runs', () => {
  const cases: [string, string, number, RegExp][] = [
    ['a YAML syntax error', 'name: x\nsteps:\n  - request: POST /v1/card/list\n    body: { a: 1\n', 5, /./],
    [
      'an unknown field, at its own line',
      'name: x\nsteps:\n  - request: POST /v1/card/list\n    expect:\n      stauts: 200\n',
      5,
      /unknown field "stauts"/,
    ],
    [
      'a step of no known kind',
      'name: x\nsteps:\n  - request: POST /v1/card/list\n  - reqest: POST /v1/card/list\n',
      4,
      /exactly one of: request, sandbox/,
    ],
    ['a bad request line', 'name: x\nsteps:\n  - request: POST /card/list\n', 3, /request must match/],
    ['a bad duration', 'name: x\nsteps:\n  - advance: 1 hour\n', 3, /advance/],
    ['a missing name', 'steps: []\n', 1, /missing field "name"/],
    [
      'a step inside parallel',
      'name: x\nsteps:\n  - parallel:\n      - request: POST /v1/card/list\n      - request: POST /v1/card/list\n        boddy: {}\n',
      6,
      /unknown field "boddy"/,
    ],
  ];
  it.each(cases)('%s', async (_, text, line, message) => {
    const file = write('bad.yaml', text);
    const err = await loadScenario(file, dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioFileError);
    expect((err as ScenarioFileError).file).toBe('bad.yaml');
    expect((err as ScenarioFileError).line).toBe(line);
    expect((err as ScenarioFileError).detail).toMatch(message);
  });

  it('reports every problem of a file at once, each at its line, suggesting a known key one edit away', async () => {
    const file = write(
      'many.yaml',
      [
        'nmae: several problems', // 1: a typo of name (told once: not also as name missing)
        'account: { balance: 10, depositFeeRte: "0" }', // 2
        'steps:', // 3
        '  - request: POST /v1/card/list', // 4
        '    expect:', // 5
        '      stauts: 200', // 6: two letters swapped
        '  - reqest: POST /v1/card/list', // 7: no known step kind
        '  - request: POST /card/list', // 8: a bad request line
        '  - advance: 1 hour', // 9: a bad duration
        '  - sandbox: clock', // 10
        '    bdy: {}', // 11: a letter dropped
        '    expect: { statis: 200 }', // 12: a letter changed
        '',
      ].join('\n'),
    );
    const err = (await loadScenario(file, dir).catch((e: unknown) => e)) as ScenarioFileError;
    expect(err).toBeInstanceOf(ScenarioFileError);
    expect(err.problems.map((p) => [p.line, p.detail])).toEqual([
      [1, 'unknown field "nmae": did you mean "name"?'],
      [2, 'unknown field "depositFeeRte": did you mean "depositFeeRate"?'],
      [6, 'unknown field "stauts": did you mean "status"?'],
      [
        7,
        expect.stringMatching(
          /^a step needs exactly one of: request, .*; unknown key "reqest": did you mean "request"\?$/,
        ),
      ],
      [8, expect.stringMatching(/^request must match/)],
      [9, 'advance must be number, or must match ^\\d+(\\.\\d+)?(ms|s|m|h|d)$'],
      [11, 'unknown field "bdy": did you mean "body"?'],
      [12, 'unknown field "statis": did you mean "status"?'],
    ]);
    // One line each, in line order, in what the command prints.
    expect(err.message.split('\n')).toHaveLength(err.problems.length);
    expect(err.message.split('\n')[2]).toBe('many.yaml:6: unknown field "stauts": did you mean "status"?');
  });

  it('suggests nothing for an unknown key more than one edit from every known one', async () => {
    const file = write('far.yaml', 'name: x\nsteps:\n  - request: POST /v1/card/list\n    payload: {}\n');
    const err = (await loadScenario(file, dir).catch((e: unknown) => e)) as ScenarioFileError;
    expect(err.problems).toEqual([{ line: 4, detail: 'unknown field "payload"' }]);
  });

  it('JSON files are accepted, with lines', async () => {
    const file = write('bad.json', '{\n  "name": "x",\n  "steps": [\n    {"advance": "1h", "extra": 1}\n  ]\n}\n');
    const err = (await loadScenario(file, dir).catch((e: unknown) => e)) as ScenarioFileError;
    expect([err.line, err.detail]).toEqual([4, 'unknown field "extra"']);
  });

  it('a missing include is reported at the include line', async () => {
    const file = write('inc.yaml', 'name: x\ninclude:\n  - nope.yaml\nsteps: []\n');
    const err = (await loadScenario(file, dir).catch((e: unknown) => e)) as ScenarioFileError;
    expect([err.file, err.line]).toEqual(['inc.yaml', 3]);
    expect(err.detail).toMatch(/nope\.yaml.*ENOENT/);
  });

  it('an include cycle is reported', async () => {
    write('a.yaml', 'name: a\ninclude: [b.yaml]\nsteps: []\n');
    write('b.yaml', 'name: b\ninclude: [a.yaml]\nsteps: []\n');
    const err = (await loadScenario(join(dir, 'a.yaml'), dir).catch((e: unknown) => e)) as ScenarioFileError;
    expect(err.detail).toBe('include cycle: a.yaml -> b.yaml -> a.yaml');
  });

  it('a file that does not exist is reported by name', async () => {
    const errOut = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await runScenarioCommand(['run', join(dir, 'missing.yaml')])).toBe(1);
    expect(String(errOut.mock.calls[0][0])).toMatch(/missing\.yaml: cannot read: ENOENT/);
    expect(await runScenarioCommand(['run', join(dir, 'missing.yaml'), '--concurrency', 'x'])).toBe(2);
  });

  it('the CLI prints every malformed file and exits 1 without running', async () => {
    const errOut = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const bad = write('bad.yaml', 'name: x\nsteps:\n  - advance: soon\n');
      expect(await runScenarioCommand(['run', bad])).toBe(1);
      expect(String(errOut.mock.calls[0][0])).toContain('bad.yaml:3: ');
      // Every problem of every file, each on its own line, counted.
      const worse = write('worse.yaml', 'name: x\nsteps:\n  - advance: soon\n  - reqest: POST /v1/card/list\n');
      errOut.mockClear();
      expect(await runScenarioCommand(['run', bad, worse])).toBe(1);
      const printed = errOut.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toMatch(/worse\.yaml:3: advance must be/);
      expect(printed).toMatch(/worse\.yaml:4: a step needs exactly one of: .*did you mean "request"\?/);
      expect(printed).toContain('3 problem(s) in 2 malformed scenario file(s); nothing ran');
    } finally {
      errOut.mockRestore();
    }
  });
});

afterEach(() => vi.restoreAllMocks());

describe('JSON scenario files', () => {
  it('run like YAML ones', async () => {
    const r = await runFile(
      JSON.stringify({
        name: 'json',
        account: { balance: 10 },
        steps: [
          {
            request: 'POST /v1/wallet/assetList',
            expect: { body: { assetList: [{ availableAmount: { $decimal: '10' } }, {}] } },
          },
        ],
      }),
      'case.json',
    );
    expect(r.ok).toBe(true);
  });
});
