/**
 * Adapter to the contracts engineer's registry (src/contracts/registry.ts, exporting
 * validateResponse(method, path, status, body, {strict}) -> ContractViolation[]). Until it is merged this finds
 * no registry and validates nothing; the runner then notes that contract validation was skipped.
 */
export interface ContractViolation {
  message: string;
  /** Where in the body (a JSON pointer), when the registry says. */
  instancePath?: string;
}

type Validate = (method: string, path: string, status: number, body: unknown, opts: { strict: boolean }) => unknown[];

let registry: Promise<Validate | undefined> | undefined;

function load(): Promise<Validate | undefined> {
  // A computed specifier: the module may not exist on this branch, and its absence is not an error.
  const specifier = ['..', 'contracts', 'registry.js'].join('/');
  return (registry ??= import(specifier).then(
    (m: { validateResponse?: Validate }) => m.validateResponse,
    () => undefined,
  ));
}

/** Violations of the response's contract; `undefined` when no contract registry is available. */
export async function contractViolations(
  method: string,
  path: string,
  status: number,
  body: unknown,
): Promise<ContractViolation[] | undefined> {
  const validate = await load();
  if (!validate) return undefined;
  return validate(method, path, status, body, { strict: true }).map((v) =>
    typeof v === 'string' ? { message: v } : { message: String((v as ContractViolation).message), instancePath: (v as ContractViolation).instancePath },
  );
}
