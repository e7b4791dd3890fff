import { describe, expect, it } from "vitest";
import * as z from "zod";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { checkOutput, outputJsonSchema } from "../../lib/core/structuredOutput.ts";

describe("outputJsonSchema", () => {
  it("asks the model for what the schema parses: the input side of a pipe", () => {
    const schema = z.object({ n: z.string().pipe(z.coerce.number()) });
    const sent = outputJsonSchema(schema);
    expect(sent).toEqual({
      type: "object",
      properties: { n: { type: "string" } },
      required: ["n"],
      additionalProperties: false,
    });
    // An answer that fits what the model was sent is accepted, and the parsed value is stored.
    expect(checkOutput('{"n":"21"}', schema)).toEqual({ ok: true, value: { n: 21 } });
  });

  it("sends objects that drop unknown keys closed, and loose ones open", () => {
    const sent = outputJsonSchema(z.object({ a: z.object({ b: z.string() }), c: z.looseObject({}) }));
    expect(sent).toMatchObject({
      additionalProperties: false,
      properties: { a: { additionalProperties: false }, c: { additionalProperties: {} } },
    });
  });

  it("refuses a transform, whose parsed value may not be JSON, naming the output", () => {
    const make = () => outputJsonSchema(z.object({ n: z.string().transform(Number) }));
    expect(make).toThrow(InvalidInputError);
    expect(make).toThrow(expect.objectContaining({ field: "output" }));
  });
});
