export const SESSION_COOKIE = "service_session";
