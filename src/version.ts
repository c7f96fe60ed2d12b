export const SERVER_NAME = 'app-management-mcp';
export const SERVER_VERSION = '0.1.0';
