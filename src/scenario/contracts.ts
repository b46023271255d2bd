/**
 * Adapter to the contracts engineer's registry (src/contracts/registry.ts: validateResponse(method, path, status,
 * body, {strict}) and validateEvent(envelope, {strict}), each returning ContractViolation[]). Where the registry is
 * not there, nothing is validated and the runner says so.
 */
export interface ContractViolation {
  message: string;
  /** Where in the body (a JSON pointer), when the registry says. */
  instancePath?: string;
}

interface Registry {
  validateResponse?: (
    method: string,
    path: string,
    status: number,
    body: unknown,
    opts: { strict: boolean },
  ) => unknown[];
  validateEvent?: (envelope: unknown, opts: { strict: boolean }) => unknown[];
}

let registry: Promise<Registry | undefined> | undefined;

function load(): Promise<Registry | undefined> {
  // A computed specifier: the module may be absent from a build, and its absence is not an error.
  const specifier = ['..', 'contracts', 'registry.js'].join('/');
  return (registry ??= import(specifier).then(
    (m: Registry) => m,
    () => undefined,
  ));
}

function normalise(list: unknown[]): ContractViolation[] {
  return list.map((v) =>
    typeof v === 'string'
      ? { message: v }
      : { message: String((v as ContractViolation).message), instancePath: (v as ContractViolation).instancePath },
  );
}

/** Violations of the response's contract; `undefined` when no contract registry is available. */
export async function contractViolations(
  method: string,
  path: string,
  status: number,
  body: unknown,
): Promise<ContractViolation[] | undefined> {
  const validate = (await load())?.validateResponse;
  return validate ? normalise(validate(method, path, status, body, { strict: true })) : undefined;
}

/** Violations of a delivered event's contract; `undefined` when no contract registry is available. */
export async function eventViolations(envelope: unknown): Promise<ContractViolation[] | undefined> {
  const validate = (await load())?.validateEvent;
  return validate ? normalise(validate(envelope, { strict: true })) : undefined;
}
