/** fettle's own version, as `fettle --version` prints it and the records it exports name it. */
export const VERSION = '0.1.0';
