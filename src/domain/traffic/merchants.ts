import type { Merchant } from '../network/merchants.js';

// The merchants traffic buys from: a few realistic names per kind of story (hotels raise their holds, restaurants
// clear tips, airlines force post), each in a country that bills in the purchase's currency. A fixed catalogue, so a
// seed always gives the same merchants, and no faker on the job path.

interface MerchantKind {
  names: readonly string[];
  mccCategory: string;
}

/** The kinds of merchant traffic buys from. */
export type MerchantGroup = 'everyday' | 'hotel' | 'dining' | 'online' | 'airline' | 'fuel' | 'retail';

const MERCHANTS: Record<MerchantGroup, MerchantKind> = {
  everyday: {
    names: ['CORNER GROCERY', 'GREEN LEAF MARKET', 'DAILY PHARMACY', 'CITY BOOKSHOP', 'STREAMFLIX', 'METRO TRANSIT'],
    mccCategory: 'Grocery Stores',
  },
  hotel: {
    names: ['HARBOR VIEW HOTEL', 'GRAND PLAZA HOTEL', 'SUNSET CAR RENTAL', 'ALPINE LODGE'],
    mccCategory: 'Lodging',
  },
  dining: {
    names: ['BLUE DOOR BISTRO', 'NORTH END PIZZA', 'YELLOW CAB CO', 'THE COFFEE HOUSE'],
    mccCategory: 'Restaurants',
  },
  online: { names: ['MEGAMART ONLINE', 'GADGET DEPOT', 'BOOKNOOK MARKETPLACE'], mccCategory: 'Online Retail' },
  airline: { names: ['SKYLINE AIRWAYS', 'TRANSATLANTIC AIR', 'REGIONAL RAIL'], mccCategory: 'Airlines' },
  fuel: { names: ['QUICKFILL FUEL', 'ROADSTAR GAS', 'EV CHARGE POINT'], mccCategory: 'Fuel' },
  retail: { names: ['OUTLET STORE', 'HOME GOODS CO', 'SPORTS WORLD'], mccCategory: 'Retail' },
};

/** Where a merchant billing in this currency is. */
const COUNTRIES: Record<string, readonly string[]> = {
  USD: ['US'],
  EUR: ['DE', 'FR', 'NL', 'ES', 'IT'],
  GBP: ['GB'],
  JPY: ['JP'],
};

/** The story's merchant, drawn with `pick` (the story's own random stream). */
export function trafficMerchant(
  groupName: MerchantGroup,
  currency: string,
  pick: <T>(items: readonly T[]) => T,
): Merchant {
  const group = MERCHANTS[groupName];
  return {
    merchantName: pick(group.names),
    merchantCountry: pick(COUNTRIES[currency] ?? ['US']),
    mccCategory: group.mccCategory,
  };
}
