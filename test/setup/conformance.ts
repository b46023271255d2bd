import { afterEach, beforeEach } from 'vitest';
import { formatFindings } from '../../src/contracts/conformance.js';
import { conformance } from '../helpers/conformance.js';

// A test fails when any response it received, or any event the sandbox emitted during it, breaks its contract.
beforeEach(() => {
  conformance.take();
});

afterEach(() => {
  const findings = conformance.take();
  if (findings.length) throw new Error(`contract violations (contracts/ is the truth):\n${formatFindings(findings)}`);
});
