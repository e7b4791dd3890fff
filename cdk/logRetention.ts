import { RetentionDays } from "aws-cdk-lib/aws-logs";

/** The retention CloudWatch Logs offers, in days, shortest first (RetentionDays' finite values). */
const OFFERED = (Object.values(RetentionDays).filter((days) => typeof days === "number") as number[])
  .filter((days) => days !== RetentionDays.INFINITE)
  .sort((a, b) => a - b);

/**
 * How long the deployment's log groups keep what they hold: `logRetention` when given; else, with
 * `retentionDays`, the longest retention CloudWatch offers that is not longer than the runs are
 * kept (logs never outlive the table's copy of a run; one day at least); else three months.
 */
export function logRetentionOf(props: {
  logRetention?: RetentionDays;
  retentionDays?: number;
}): RetentionDays {
  if (props.logRetention !== undefined) return props.logRetention;
  if (props.retentionDays === undefined) return RetentionDays.THREE_MONTHS;
  const days = props.retentionDays;
  return (OFFERED.filter((offered) => offered <= days).at(-1) ?? RetentionDays.ONE_DAY) as RetentionDays;
}
