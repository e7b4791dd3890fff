/** The longest retention of finished runs: a hundred years (a date past it may not be representable, or mean anything). */
export const MAX_RETENTION_DAYS = 36_500;
