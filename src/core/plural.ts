// A count with its noun: "1 file", "3 files", "2 long lines".

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
