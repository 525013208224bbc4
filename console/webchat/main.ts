/** What WebChat's page script takes from the build, as one classic script: the Markdown renderer and the words. */
export { render } from "./markdown";
export { language, localize, size, t, time } from "./words";
