#ifndef AI_FABRIC_MAP_PLACEMENT_H
#define AI_FABRIC_MAP_PLACEMENT_H

#include "ns3/job-placement.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief "map": a user's rank -> GPU list, one "rank gpu" pair per line (GPU by host name such
 * as s3g5, or host id; ',' or tabs may separate), '#' starts a comment.
 *
 * The map is read when the File attribute is set (or by FromText); a malformed line throws
 * std::invalid_argument naming it.  Whether the map fits the job and topology is checked by
 * Place.
 */
class MapPlacement : public JobPlacement
{
  public:
    static TypeId GetTypeId();
    /** The map in \p text; \p origin names it in errors. */
    static Ptr<MapPlacement> FromText(const std::string& text, const std::string& origin);

    std::vector<uint32_t> Place(const FabricTopology& topology,
                                uint32_t ranks,
                                const std::vector<bool>& taken,
                                Ptr<UniformRandomVariable> random) const override;

  private:
    /** Read the map from file \p path (the File attribute). */
    void SetFile(std::string path);
    void Parse(const std::string& text, const std::string& origin);
    std::string GetFile() const { return m_file; }

    std::string m_file;
    std::string m_origin; //!< where the map came from, for errors
    struct Entry
    {
        uint32_t line;
        uint32_t rank;
        std::string gpu;
    };
    std::vector<Entry> m_map;
};

} // namespace ns3

#endif
