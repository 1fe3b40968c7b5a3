// Summary Memory policy for LangChain.js v1's summarizationMiddleware (being written).
const TRIGGER = __SM_TRIGGER__;
const KEEP = __SM_KEEP__;
