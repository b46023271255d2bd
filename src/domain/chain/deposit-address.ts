// tronweb costs ~0.5-1 s and ~46 MB to import, so it is loaded on first need, never on the start-up path.
let tronweb: Promise<typeof import('tronweb')> | undefined;
const loadTronweb = () => (tronweb ??= import('tronweb'));

/** Starts loading tronweb in the background so the first address request does not pay for it. */
export function warmUpTronweb(): void {
  void loadTronweb().catch(() => {});
}

/** A fresh, real TRON base58check address (its private key is discarded: the sandbox never spends). */
export async function generateTronAddress(): Promise<string> {
  const { utils } = await loadTronweb();
  const account = utils.accounts.generateAccount();
  return account.address.base58;
}

export async function isTronAddress(address: string): Promise<boolean> {
  const { utils } = await loadTronweb();
  return (
    typeof address === 'string' && /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address) && utils.crypto.isAddressValid(address)
  );
}
