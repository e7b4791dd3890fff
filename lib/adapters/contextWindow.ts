/**
 * How providers say the prompt does not fit: OpenAI and Azure ("maximum context length"), vLLM
 * and LM Studio ("context length"), Mistral, Anthropic and Bedrock ("too many tokens", "prompt is
 * too long", "input is too long"). One list for every model adapter, so they agree on what a
 * full context window is.
 */
const CONTEXT_FULL_PATTERNS = [
  /context[ _-]?(length|window)/i,
  /maximum context/i,
  /too many tokens/i,
  /(prompt|input) is too long/i,
];

/** Whether a provider's message for a refused request says the conversation does not fit the context window. */
export function saysContextFull(message: string): boolean {
  return CONTEXT_FULL_PATTERNS.some((pattern) => pattern.test(message));
}
