import { createHash } from 'node:crypto';

export interface Merchant {
  merchantName: string;
  merchantCountry: string;
  mccCategory: string;
}

// faker costs ~36 ms to import: loaded on the first simulated purchase, never on the start-up path.
let fakerModule: Promise<typeof import('@faker-js/faker/locale/en')> | undefined;
const loadFaker = () => (fakerModule ??= import('@faker-js/faker/locale/en'));

/**
 * A plausible merchant, deterministic for a seed (the transaction or challenge id), so a replayed scenario
 * shows the same names. Fields the caller gave win over generated ones.
 */
export async function merchantFor(seed: string, given: Partial<Merchant>): Promise<Merchant> {
  if (given.merchantName && given.merchantCountry && given.mccCategory) return given as Merchant;
  const { faker } = await loadFaker();
  faker.seed(createHash('sha256').update(seed).digest().readUInt32BE(0));
  return {
    merchantName: given.merchantName ?? faker.company.name(),
    merchantCountry: given.merchantCountry ?? faker.location.countryCode('alpha-2'),
    mccCategory: given.mccCategory ?? faker.commerce.department(),
  };
}
