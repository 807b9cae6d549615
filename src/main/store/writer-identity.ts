/** Who writes a session and whether that process lives: kept in disk/ so that every layer may ask (the private desktops' records too). */
export * from '../disk/process-identity';
