// When an authorisation left PENDING is reversed by itself (docs/design.md section 6): its job, and its delay on the
// account clock. Apart from the transaction records so that what only tells of the expiry (a 4007's hint) needs
// nothing else.

export const AUTH_EXPIRY_JOB = 'txn.expire';
export const AUTH_EXPIRY_MS = 7 * 24 * 3600 * 1000;
