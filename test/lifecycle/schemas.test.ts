import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { LIFECYCLE_SCHEMAS } from "../../lib/core/lifecycle.ts";

/**
 * Each lifecycle detail-type's JSON Schema, generated from the zod schema the events are built to
 * (lib/core/lifecycleSchemas.ts), is the one committed under docs/reference/lifecycle/. A change
 * of shape fails here until the schemas are written again, deliberately:
 * RUNLOG_UPDATE_SCHEMAS=1 npx vitest run test/lifecycle/schemas.test.ts
 */
const DIR = join(import.meta.dirname, "..", "..", "docs", "reference", "lifecycle");

const generated = (type: keyof typeof LIFECYCLE_SCHEMAS) => ({
  title: type,
  ...z.toJSONSchema(LIFECYCLE_SCHEMAS[type], { target: "draft-2020-12", io: "output" }),
});

describe("the committed lifecycle schemas", () => {
  it.each(Object.keys(LIFECYCLE_SCHEMAS) as (keyof typeof LIFECYCLE_SCHEMAS)[])(
    "%s matches its zod schema",
    (type) => {
      const file = join(DIR, `${type}.schema.json`);
      const text = `${JSON.stringify(generated(type), null, 2)}\n`;
      if (process.env.RUNLOG_UPDATE_SCHEMAS === "1") writeFileSync(file, text);
      // Compared as JSON: the committed file is formatted by Biome like the rest of the repository.
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(JSON.parse(text));
    },
  );
});
