/**
 * What a JSON pointer or XPath finds where nothing is. A module of its own so that the pointer
 * walker and the matcher, which both need it, do not import each other.
 */
export const ABSENT = Symbol('absent');
