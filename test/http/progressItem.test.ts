import { describe, expect, it } from "vitest";
import { describeEvent } from "../../lib/cli/format.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { eventItem } from "../../lib/http/viewer/eventItem.ts";

const saved = stamp({ type: "response_progress", text: "Once upon <b>a time</b>" }, 2, new Date(0), 1);

describe("text saved while a response streamed", () => {
  it("the run viewer shows it, escaped, under its own heading", () => {
    const page = eventItem("story", saved).toString();
    expect(page).toContain("Model text saved while streaming");
    expect(page).toContain("Once upon &lt;b&gt;a time&lt;/b&gt;");
    expect(page).not.toContain("<b>a time");
  });

  it("runlog show says how much was saved and shows it", () => {
    expect(describeEvent(saved)).toBe('model streaming: 23 more characters saved: "Once upon <b>a time</b>"');
  });
});
