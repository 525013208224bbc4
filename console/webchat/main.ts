/** What WebChat's page script takes from the build, as one classic script: the Markdown renderer and the words. */
export { render } from "./markdown";
export { errorText, language, localize, size, t, time } from "./words";
