// The card-step fee rule worked in exact decimals, as a person would on paper, to check the sandbox's own arithmetic
// (which works in micro-units and parts per million) against: credit = floor_to_cent(amount - amount * rate - openFee).

/** A decimal string ("12.5", "0.000001") as integer units of 10^-places. */
function decimal(text: string): { units: bigint; places: number } {
  const [whole, frac = ''] = text.split('.') as [string, string?];
  return { units: BigInt(whole + frac), places: frac.length };
}

/** The card's credit in whole cents (negative when the fees exceed the amount). */
export function creditCents(amount: string, rate: string, openFee: string): bigint {
  const a = decimal(amount);
  const r = decimal(rate);
  const o = decimal(openFee);
  // Everything over one denominator 10^places: amount * rate has a.places + r.places decimals.
  const places = Math.max(a.places + r.places, o.places, 2);
  const at = (units: bigint, p: number) => units * 10n ** BigInt(places - p);
  const net = at(a.units, a.places) - at(a.units * r.units, a.places + r.places) - at(o.units, o.places);
  const perCent = 10n ** BigInt(places - 2);
  // Floor, not truncation: -0.005 is -1 cent.
  return net >= 0n ? net / perCent : -((-net + perCent - 1n) / perCent);
}
