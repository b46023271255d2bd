import { billCount, billRows, type BillRow, type BillScope, type TxnStatus } from '../../store/transactions.js';
import type { Deps } from '../kernel/deps.js';

export type { BillRow, BillScope, TxnStatus };
export type ListingStatus = 'COMPLETED' | 'PENDING' | 'FAILED' | 'REVERTED';

/** Event status -> the status bill/list shows (docs/design.md section 6). */
export const LISTING_STATUS: Record<TxnStatus, ListingStatus> = {
  PENDING: 'PENDING',
  CLEARED: 'COMPLETED',
  DECLINED: 'FAILED',
  CANCELLED: 'REVERTED',
  REFUND: 'REVERTED',
};

export interface BillPage {
  rows: BillRow[];
  totalElements: number;
  totalPages: number;
  pageNumber: number;
  last: boolean;
}

/**
 * One page of a listing, newest first. Sequence numbers are dense, so page k of n is the seq range
 * (total - k*size, total - (k-1)*size]: one indexed range read however deep the page. A page past the last
 * answers the last page.
 */
export async function listBills(
  deps: Pick<Deps, 'db'>,
  scope: BillScope,
  pageNumber: number,
  pageSize: number,
): Promise<BillPage> {
  const { db } = deps;
  const totalElements = await billCount(db, scope);
  const totalPages = Math.ceil(totalElements / pageSize);
  if (totalElements === 0) return { rows: [], totalElements, totalPages: 0, pageNumber: 1, last: true };
  const page = Math.min(pageNumber, totalPages);
  const high = totalElements - (page - 1) * pageSize;
  const low = Math.max(1, high - pageSize + 1);
  const rows = await billRows(db, scope, low, high);
  return { rows, totalElements, totalPages, pageNumber: page, last: page === totalPages };
}
