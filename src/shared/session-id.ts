/** A session's id: its folder's name under sessions/, as the store makes it, and nothing that could leave the folder. */
import { z } from 'zod';

export const SESSION_ID_PATTERN = /^[\w][\w.-]*$/;

/** A session id in a request (the window's commands and routes): a malformed one is named in the error. */
export const SessionIdSchema = z.string().regex(SESSION_ID_PATTERN, { error: (issue) => `"${String(issue.input)}" is not a session id` });
