import type { AutoResumes, EventStore, RunHead } from "../../lib/ports/eventStore.ts";

/**
 * A store that keeps the automatic-resume record `claimLease` is given and shows it on the heads it
 * returns, for stores that do not store it yet (the port asks them to). Over a store that does, it
 * shows the same record the store keeps.
 */
export function keepingAutoResumes(inner: EventStore): EventStore {
  const records = new Map<string, AutoResumes>();
  const withRecord = (head: RunHead): RunHead => {
    const record = records.get(head.runId);
    return record ? { ...head, autoResumes: record } : head;
  };
  const overlay: Partial<EventStore> = {
    async claimLease(runId, lease, expectVersion, autoResumes) {
      await inner.claimLease(runId, lease, expectVersion, autoResumes);
      if (autoResumes) records.set(runId, autoResumes);
    },
    async getHead(runId) {
      const head = await inner.getHead(runId);
      return head && withRecord(head);
    },
    async listRuns(options) {
      const page = await inner.listRuns(options);
      return { ...page, runs: page.runs.map(withRecord) };
    },
  };
  return new Proxy(inner, {
    get(target, property, receiver) {
      const own = overlay[property as keyof EventStore];
      if (own) return own;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
