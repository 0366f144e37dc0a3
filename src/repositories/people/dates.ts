/** a timestamp column as pg hands it over, as a Date */
export const date = (value: unknown) => new Date(value as string);
