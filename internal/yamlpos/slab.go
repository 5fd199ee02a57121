package yamlpos

import (
	"sync"

	"gopkg.in/yaml.v3"
)

// The nodes fastItem builds were a quarter of the bytes validate
// allocates over a long suite (yaml.Node is 152 bytes, and an item of a
// few keys is thirty of them), every one of them garbage once its item
// is converted. A chunk's items take their nodes from a slab of blocks,
// and once the conversion has moved on to the next chunk (nothing
// converted keeps a node: values and positions are copied out of them),
// the blocks go back to a pool, cleared, for the chunks parsed after.

// slabBlock is the number of nodes of a block.
const slabBlock = 256

// nodeBlocks holds blocks of nodes to reuse, each cleared.
var nodeBlocks sync.Pool

// nodeSlab hands out nodes from blocks; a nil slab allocates each node on
// its own.
type nodeSlab struct {
	blocks []*[]yaml.Node
	cur    []yaml.Node
}

// node returns a node to fill.
func (s *nodeSlab) node() *yaml.Node {
	if s == nil {
		return new(yaml.Node)
	}
	if len(s.cur) == 0 {
		b, _ := nodeBlocks.Get().(*[]yaml.Node)
		if b == nil {
			nodes := make([]yaml.Node, slabBlock)
			b = &nodes
		}
		s.blocks = append(s.blocks, b)
		s.cur = *b
	}
	n := &s.cur[0]
	s.cur = s.cur[1:]
	return n
}

// release gives the blocks back, cleared: the caller holds no node of
// them any more.
func (s *nodeSlab) release() {
	if s == nil {
		return
	}
	for _, b := range s.blocks {
		clear(*b)
		nodeBlocks.Put(b)
	}
	*s = nodeSlab{}
}
